package io.durableagents.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.app.TemporalDevServer;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;

/**
 * {@code agents bench --anatomy}: where a step's time goes on the real server. Without {@code
 * --temporal} it starts the Temporal CLI's dev server twice, first with the server's own dispatch
 * defaults and then as {@code agents server} starts it ({@link TemporalDevServer#FAST_DISPATCH}),
 * and takes the same sessions apart on each; with {@code --temporal} it measures that server only.
 */
final class AnatomyBench {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The rows measured on one server. */
  record ServerRun(String server, List<AnatomyRow> rows) {}

  private AnatomyBench() {}

  /**
   * @param cli the Temporal CLI that runs the dev servers when {@code temporal} is null
   * @param temporal HOST:PORT of the one server to measure, or null for the two dev servers
   */
  static List<ServerRun> run(
      BenchConfig config,
      Path cli,
      String temporal,
      String namespace,
      String projection,
      PrintWriter progress) {
    List<ServerRun> runs = new ArrayList<>();
    if (temporal != null) {
      runs.add(
          measure(config, "Temporal at " + temporal, temporal, namespace, projection, progress));
      return runs;
    }
    for (boolean fast : new boolean[] {false, true}) {
      TemporalDevServer.Options.Builder options = TemporalDevServer.Options.newBuilder(cli);
      String name = "dev server, " + (fast ? "as agents server starts it" : "its own defaults");
      if (!fast) {
        options.serverDispatchDefaults();
      }
      progress.println("bench: starting the " + name);
      progress.flush();
      try (TemporalDevServer server = TemporalDevServer.start(options.build())) {
        runs.add(measure(config, name, server.address(), "default", projection, progress));
      }
    }
    return runs;
  }

  private static ServerRun measure(
      BenchConfig config,
      String name,
      String address,
      String namespace,
      String projection,
      PrintWriter progress) {
    try (Bench bench = new Bench(config, address, namespace, projection, progress)) {
      progress.println("bench: " + config.name() + " anatomy on " + bench.target());
      progress.flush();
      return new ServerRun(name, bench.anatomy());
    }
  }

  static String toJson(List<ServerRun> runs) {
    ArrayNode servers = JSON.createArrayNode();
    for (ServerRun run : runs) {
      ObjectNode server = servers.addObject().put("server", run.server());
      ArrayNode rows = server.putArray("steps");
      for (AnatomyRow row : run.rows()) {
        ObjectNode node =
            rows.addObject()
                .put("mode", row.mode().name().toLowerCase(Locale.ROOT))
                .put("side", row.plugin() ? "plugin" : "baseline")
                .put("sessions", row.sessions())
                .put("stepsPerSession", row.steps());
        for (Figure figure : FIGURES) {
          double value = figure.value.applyAsDouble(row);
          if (!Double.isNaN(value)) {
            node.put(figure.key, value);
          }
        }
        ObjectNode kinds = node.putObject("actionsPerSessionByKind");
        row.cost().actions().keySet().forEach(kind -> kinds.put(kind, row.actionsPerSession(kind)));
      }
    }
    return JSON.createObjectNode().set("anatomy", servers).toString();
  }

  static void printTable(List<ServerRun> runs, PrintWriter out) {
    for (ServerRun run : runs) {
      out.println(
          "Step anatomy on the "
              + run.server()
              + " (per step, one session at a time; times in ms, whole sessions over their steps)");
      for (Bench.StepMode mode : Bench.StepMode.values()) {
        AnatomyRow plugin = find(run, mode, true);
        AnatomyRow baseline = find(run, mode, false);
        out.printf("  %-44s %10s %10s%n", mode.label, "plugin", "baseline");
        for (Figure figure : FIGURES) {
          out.printf(
              "  %-44s %10s %10s%n",
              figure.label,
              BenchReport.format(figure.value.applyAsDouble(plugin)),
              BenchReport.format(figure.value.applyAsDouble(baseline)));
        }
        Set<String> kinds = new TreeSet<>(plugin.cost().actions().keySet());
        kinds.addAll(baseline.cost().actions().keySet());
        for (String kind : kinds) {
          out.printf(
              "  %-44s %10s %10s%n",
              "    " + kind,
              BenchReport.format(plugin.actionsPerSession(kind)),
              BenchReport.format(baseline.actionsPerSession(kind)));
        }
      }
      out.println();
    }
  }

  private static AnatomyRow find(ServerRun run, Bench.StepMode mode, boolean plugin) {
    return run.rows().stream()
        .filter(row -> row.mode() == mode && row.plugin() == plugin)
        .findFirst()
        .orElseThrow();
  }

  private record Figure(String key, String label, ToDoubleFunction<AnatomyRow> value) {}

  private static final List<Figure> FIGURES =
      List.of(
          new Figure("wallMs", "wall time", AnatomyRow::wallMs),
          new Figure("workflowTasks", "workflow tasks (count)", AnatomyRow::workflowTasksPerStep),
          new Figure(
              "workflowTaskWaitMs",
              "  their wait for a worker (server dispatch)",
              AnatomyRow::workflowTaskWaitMs),
          new Figure(
              "workflowTaskRunMs",
              "  their run, started to completed",
              AnatomyRow::workflowTaskRunMs),
          new Figure("activityWaitMs", "activities' wait for a worker", AnatomyRow::activityWaitMs),
          new Figure(
              "activityRunMs", "activities' run, started to completed", AnatomyRow::activityRunMs),
          new Figure("otherMs", "the rest (client, start, result)", AnatomyRow::otherMs),
          new Figure(
              "modelHandlerMs",
              "worker: model turn handler",
              row -> row.handlerMs(StepProfile.MODEL_TURN)),
          new Figure(
              "toolHandlerMs", "worker: tool handler", row -> row.handlerMs(StepProfile.TOOL_CALL)),
          new Figure(
              "checkpointSaveMs",
              "worker: checkpoint saves (local activities)",
              row -> row.handlerMs(StepProfile.CHECKPOINT_SAVE)),
          new Figure(
              "workflowCodeMs", "worker: workflow code between calls", AnatomyRow::workflowCodeMs),
          new Figure(
              "historyEventsPerStep", "history events (count)", AnatomyRow::historyEventsPerStep),
          new Figure("historyBytesPerStep", "history bytes", AnatomyRow::historyBytesPerStep),
          new Figure(
              "actionsPerStep", "Temporal Cloud actions (estimate)", AnatomyRow::actionsPerStep),
          new Figure(
              "actionsPerSession",
              "  per session (start and answer included)",
              AnatomyRow::actionsPerSession));
}
