package io.durableagents.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The figures of one bench run: a flat JSON object of numbers ({@code --json}) or a table.
 *
 * <p>Keys: {@code stepOverheadRatio} (= {@code stepOverheadRatio1}), {@code stepOverheadRatio64},
 * {@code stepsPerSecond1|64}, {@code baselineStepsPerSecond1|64}; the same with the model turn and
 * the tool as local activities against a local-activity baseline: {@code localStepOverheadRatio} (=
 * {@code localStepOverheadRatio1}), {@code localStepOverheadRatio64}, {@code
 * localStepsPerSecond1|64}, {@code localBaselineStepsPerSecond1|64}; {@code
 * historyBytesPerTurnEarly}, {@code historyBytesPerTurnLate}, {@code historyGrowthRatio}, {@code
 * approvalResumeMsP50}, {@code approvalResumeRatio}, {@code forkLatencyRatio}, {@code
 * forkLatencyMsLong}, {@code forkLatencyMsShort}, {@code bytesPerWaitingSession}, {@code
 * coldReplayMsPer100Turns}, and the supporting figures the table shows. Besides the numbers, {@code
 * server} says which Temporal the bench ran on: {@code "embedded"} or the address given with {@code
 * --temporal}.
 */
final class BenchReport {
  /** The figures every run reports. */
  static final List<String> REQUIRED_KEYS =
      List.of(
          "stepOverheadRatio",
          "stepOverheadRatio1",
          "stepOverheadRatio64",
          "stepsPerSecond1",
          "stepsPerSecond64",
          "baselineStepsPerSecond1",
          "baselineStepsPerSecond64",
          "localStepOverheadRatio",
          "localStepOverheadRatio1",
          "localStepOverheadRatio64",
          "localStepsPerSecond1",
          "localStepsPerSecond64",
          "localBaselineStepsPerSecond1",
          "localBaselineStepsPerSecond64",
          "historyBytesPerTurnEarly",
          "historyBytesPerTurnLate",
          "historyGrowthRatio",
          "approvalResumeMsP50",
          "approvalResumeRatio",
          "forkLatencyRatio",
          "forkLatencyMsLong",
          "forkLatencyMsShort",
          "bytesPerWaitingSession",
          "coldReplayMsPer100Turns");

  private static final ObjectMapper JSON = new ObjectMapper();

  private final BenchConfig config;
  private final String target;
  private final String server;
  private final Map<String, Double> figures = new LinkedHashMap<>();
  private StepAnatomy anatomy;
  private final Map<Bench.StepMode, Map<String, Map<String, ActivityTimings.Timing>>> timings =
      new EnumMap<>(Bench.StepMode.class);

  /** By mode: the plugin's profile, then the baseline's. */
  private final Map<Bench.StepMode, StepProfile[]> profiles = new EnumMap<>(Bench.StepMode.class);

  BenchReport(BenchConfig config, String target, String server) {
    this.config = config;
    this.target = target;
    this.server = server;
  }

  /** {@code "embedded"}, or the address of the Temporal the bench ran on. */
  String server() {
    return server;
  }

  void put(String key, double value) {
    figures.put(key, value);
  }

  double get(String key) {
    Double value = figures.get(key);
    if (value == null) {
      throw new IllegalStateException("no figure " + key);
    }
    return value;
  }

  Map<String, Double> figures() {
    return figures;
  }

  /** What one agent step of the long session cost in tasks and history. */
  void stepAnatomy(StepAnatomy stepAnatomy) {
    this.anatomy = stepAnatomy;
  }

  /** Where the time of a session of {@code mode} run under {@code label} went. */
  void activityTimings(
      Bench.StepMode mode, String label, Map<String, ActivityTimings.Timing> byKind) {
    timings.computeIfAbsent(mode, m -> new LinkedHashMap<>()).put(label, byKind);
  }

  /**
   * Where a step's time went, one session at a time, for the plugin or the baseline of {@code
   * mode}.
   */
  void stepProfile(Bench.StepMode mode, boolean plugin, StepProfile profile) {
    profiles.computeIfAbsent(mode, m -> new StepProfile[2])[plugin ? 0 : 1] = profile;
  }

  /** One JSON object: every figure, rounded to what the measurement can tell. */
  String toJson() {
    ObjectNode root = JSON.createObjectNode();
    root.put("server", server);
    figures.forEach(
        (key, value) -> {
          if (Double.isNaN(value) || Double.isInfinite(value)) {
            root.putNull(key);
          } else if (Math.abs(value) >= 1000 || value == Math.rint(value)) {
            root.put(key, Math.round(value));
          } else {
            root.put(key, Double.parseDouble(String.format(Locale.ROOT, "%.4g", value)));
          }
        });
    return root.toString();
  }

  void printTable(PrintWriter out) {
    out.printf(
        "Durable agents bench (%s) · %s · %d CPUs · %.0f s%n",
        config.name(),
        target,
        Runtime.getRuntime().availableProcessors(),
        figures.getOrDefault("benchSeconds", 0.0));
    out.printf(
        "(system load average %s at the start, %s during the step rounds (median), %s at the end:%n",
        format(figures.getOrDefault("loadAverageAtStart", Double.NaN)),
        format(figures.getOrDefault("loadAverageDuringSteps", Double.NaN)),
        format(figures.getOrDefault("loadAverageAtEnd", Double.NaN)));
    out.println(" other processes share these CPUs)");
    out.println();

    out.println("Agent step: scripted model turn + 1 no-op tool call + the product's checkpoints,");
    out.println("against a hand-written workflow running a no-op model and a no-op tool activity");
    out.printf("  %-26s %12s %12s %10s%n", "", "plugin", "baseline", "ratio");
    stepRow(out, Bench.StepMode.ACTIVITY, "1 session, steps/s", "1");
    stepRow(out, Bench.StepMode.ACTIVITY, config.concurrency() + " sessions, steps/s", "64");
    out.printf(
        "  (median of %d alternating rounds; %d steps per session alone, %d at once;%n",
        config.rounds(), config.stepsPerSession1(), config.stepsPerSessionN());
    out.println(
        "   ratio = time per plugin step / time per baseline step, median of the per-round ratios)");
    if (anatomy != null) {
      StringBuilder mix = new StringBuilder();
      anatomy.tasksPerStep.forEach(
          (type, n) ->
              mix.append(mix.length() == 0 ? "" : ", ").append(format(n)).append(' ').append(type));
      out.printf(
          "  per step: %s activities + %s local activities (%s),%n",
          format(anatomy.activities), format(anatomy.localActivities), mix);
      out.printf(
          "  %s workflow tasks, %s history events; baseline: 2 activities, 2 workflow tasks%n",
          format(anatomy.workflowTasks), format(anatomy.events));
    }
    printTimings(out, Bench.StepMode.ACTIVITY);
    out.println();

    out.println(
        "Local activities: the same agent with its model turn and no-op tool as local activities");
    out.println(
        "(Execution.LOCAL_ACTIVITY), against a hand-written workflow running both calls as local");
    out.println("activities; its rounds interleaved with the default mode's above");
    out.printf("  %-26s %12s %12s %10s%n", "", "plugin", "baseline", "ratio");
    stepRow(out, Bench.StepMode.LOCAL, "1 session, steps/s", "1");
    stepRow(out, Bench.StepMode.LOCAL, config.concurrency() + " sessions, steps/s", "64");
    out.printf(
        "  (median of %d rounds; %d steps per session alone, %d at once: a local step costs a fraction%n",
        config.rounds(), config.localStepsPerSession1(), config.localStepsPerSessionN());
    out.println(
        "   of a regular one, so longer sessions keep their start from dominating the per-step figure)");
    StepProfile[] local = profiles.get(Bench.StepMode.LOCAL);
    if (local != null && local[0] != null) {
      StepAnatomy a = local[0].anatomy();
      StringBuilder mix = new StringBuilder();
      a.tasksPerStep.forEach(
          (type, n) ->
              mix.append(mix.length() == 0 ? "" : ", ").append(format(n)).append(' ').append(type));
      out.printf(
          "  per step: %s activities + %s local activities (%s),%n",
          format(a.activities), format(a.localActivities), mix);
      out.printf(
          "  %s workflow tasks (%s in a whole %d-step session), %s history events, %s B of history",
          format(a.workflowTasks),
          format(local[0].workflowTasksPerSession()),
          local[0].steps(),
          format(a.events),
          format(a.bytes));
      if (local[1] != null) {
        out.printf(
            "; baseline: %s local activities, %s workflow tasks",
            format(local[1].anatomy().localActivities), format(local[1].anatomy().workflowTasks));
      }
      out.println();
      out.printf(
          "  (a %d-step session between its first and last model turn: local activities run inside%n",
          local[0].steps());
      out.println(
          "   a workflow task and are recorded as markers when it completes; one task can run many steps)");
    }
    printTimings(out, Bench.StepMode.LOCAL);
    out.println();

    printProfiles(out);

    out.printf(
        "History: %d-turn session, about %d chars of new content per turn%n",
        config.historyTurns(), config.contentChars());
    row(
        out,
        String.format("bytes/turn, turns %d-%d", config.earlyFrom(), config.earlyTo()),
        "historyBytesPerTurnEarly",
        "B");
    row(
        out,
        String.format("bytes/turn, turns %d-%d", config.lateFrom(), config.lateTo()),
        "historyBytesPerTurnLate",
        "B");
    row(out, "growth (late / early)", "historyGrowthRatio", "");
    row(
        out,
        String.format("ms/turn, turns %d-%d", config.earlyFrom(), config.earlyTo()),
        "stepMsEarly",
        "ms");
    row(
        out,
        String.format("ms/turn, turns %d-%d", config.lateFrom(), config.lateTo()),
        "stepMsLate",
        "ms");
    row(out, "whole history", "historyTotalBytes", "B");
    row(out, "events", "historyEvents", "");
    row(out, "workflow runs (continue-as-new)", "historyRuns", "");
    if (anatomy != null) {
      out.println(
          "  bytes per turn by event (turns " + config.earlyFrom() + "-" + config.lateTo() + "):");
      anatomy.bytesPerStep.entrySet().stream()
          .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
          .forEach(e -> out.printf("    %-52s %8s B%n", e.getKey(), format(e.getValue())));
    }
    out.println();

    out.printf("Approval: decision → approved tool starts (p50 of %d)%n", config.approvalSamples());
    row(out, "decide signal", "approvalResumeMsP50", "ms");
    row(out, "approve update", "approvalResumeUpdateMsP50", "ms");
    row(out, "baseline: signal → activity", "baselineSignalResumeMsP50", "ms");
    row(out, "ratio (signal / baseline)", "approvalResumeRatio", "");
    out.println();

    out.printf("Fork + first step of the fork (median of %d)%n", config.forkRepeats());
    row(out, "from a " + config.historyTurns() + "-turn session", "forkLatencyMsLong", "ms");
    row(out, "from a " + config.shortTurns() + "-turn session", "forkLatencyMsShort", "ms");
    row(out, "ratio", "forkLatencyRatio", "");
    out.println();

    out.printf(
        "Cold replay of the %d-turn session (evicted from the worker cache first; median of %d)%n",
        config.historyTurns(), config.replayRepeats());
    row(out, "status query", "coldReplayMs", "ms");
    row(out, "status query per 100 turns", "coldReplayMsPer100Turns", "ms");
    row(out, "empty send per 100 turns", "coldReplaySendMsPer100Turns", "ms");
    row(out, "warm status query (cached)", "warmStatusQueryMs", "ms");
    out.println();

    out.printf(
        "Memory: %d sessions paused at an approval (heap after GC, this JVM)%n",
        config.waitingSessions());
    row(out, "heap per waiting session", "bytesPerWaitingSession", "B");
    row(out, "  of which the worker's", "bytesPerWaitingSessionWorker", "B");
    out.println(
        "  (the first figure includes the in-process test server's state when it is embedded;");
    out.println(
        "   the second is what stopping the worker released, less the idle worker: cached workflows;");
    out.println(
        "   the worker caches at most 600 workflows, the SDK default, so it stops growing past that)");
    out.flush();
  }

  private void stepRow(PrintWriter out, Bench.StepMode mode, String label, String suffix) {
    out.printf(
        "  %-26s %12s %12s %10s%n",
        label,
        format(get(mode.key("stepsPerSecond" + suffix))),
        format(get(mode.key("baselineStepsPerSecond" + suffix))),
        format(get(mode.key("stepOverheadRatio" + suffix))));
  }

  private void printTimings(PrintWriter out, Bench.StepMode mode) {
    timings
        .getOrDefault(mode, Map.of())
        .forEach(
            (label, byKind) -> {
              out.printf("  where a session's time went (%s), mean ms:%n", label);
              out.printf("    %-26s %8s %12s %10s%n", "", "count", "queue wait", "run");
              byKind.forEach(
                  (kind, t) ->
                      out.printf(
                          "    %-26s %8d %12s %10s%n",
                          kind, t.count(), format(t.queueMs()), format(t.runMs())));
            });
  }

  /** Both modes, plugin and baseline side by side: where a step's time goes. */
  private void printProfiles(PrintWriter out) {
    StepProfile[] columns = new StepProfile[4];
    int c = 0;
    for (Bench.StepMode mode : Bench.StepMode.values()) {
      StepProfile[] pair = profiles.getOrDefault(mode, new StepProfile[2]);
      columns[c++] = pair[0];
      columns[c++] = pair[1];
    }
    StepProfile any = null;
    for (StepProfile column : columns) {
      any = any == null ? column : any;
    }
    if (any == null) {
      return;
    }
    out.printf(
        "Where a step's time goes, one session at a time (%d sessions of each kind, taking turns;%n",
        any.sessions());
    out.printf(
        "%d steps each in the default mode, %d in the local mode; on a worker of its own that%n",
        config.stepsPerSession1(), config.localStepsPerSession1());
    out.println(
        "times every call). ms per step: \"handler\" is in the activity's code, \"waited\" from the");
    out.println(
        "workflow's call to it having the result, \"workflow code\" from a result to the next call");
    out.printf("  %-34s %21s %21s%n", "", "default mode", "local mode");
    out.printf("  %-34s %10s %10s %10s %10s%n", "", "plugin", "baseline", "plugin", "baseline");
    profileRow(out, "wall time", columns, StepProfile::wallMsPerStep);
    for (String role : roleNames(columns)) {
      if (StepProfile.WORKFLOW_CODE.equals(role)) {
        continue;
      }
      profileRow(out, role + ": calls", columns, p -> roleOf(p, role).calls());
      profileRow(
          out,
          "  handler",
          columns,
          p -> roleOf(p, role).calls() == 0 ? Double.NaN : roleOf(p, role).handlerMs());
      profileRow(
          out,
          "  waited",
          columns,
          p -> roleOf(p, role).calls() == 0 ? Double.NaN : roleOf(p, role).waitedMs());
    }
    profileRow(
        out,
        "workflow code between calls",
        columns,
        p -> roleOf(p, StepProfile.WORKFLOW_CODE).waitedMs());
    profileRow(out, "rest (start, update, client)", columns, StepProfile::restMsPerStep);
    profileRow(out, "activities", columns, p -> p.anatomy().activities);
    profileRow(out, "local activities", columns, p -> p.anatomy().localActivities);
    profileRow(out, "workflow tasks", columns, p -> p.anatomy().workflowTasks);
    profileRow(out, "  whole session (count)", columns, StepProfile::workflowTasksPerSession);
    profileRow(out, "  their run time (history), ms", columns, StepProfile::workflowTaskMsPerStep);
    profileRow(
        out,
        "  their wait for a worker (history), ms",
        columns,
        StepProfile::workflowTaskWaitMsPerStep);
    profileRow(
        out,
        "activities' wait for a worker (history), ms",
        columns,
        StepProfile::activityWaitMsPerStep);
    profileRow(out, "history events", columns, p -> p.anatomy().events);
    profileRow(out, "history bytes", columns, p -> p.anatomy().bytes);
    out.println(
        "  (rest = wall time less the waits and the workflow code; the counts per step are between a");
    out.println(
        "   session's first and last model turn; local activities run inside a workflow task's run time;");
    out.println(
        "   the waits for a worker are from scheduled to started, per history: the server's dispatch)");
    out.println();
  }

  private static List<String> roleNames(StepProfile[] columns) {
    List<String> names = new ArrayList<>();
    for (StepProfile column : columns) {
      if (column != null) {
        column
            .roles()
            .forEach(
                (role, r) -> {
                  if (r.calls() > 0 && !names.contains(role)) {
                    names.add(role);
                  }
                });
      }
    }
    return names;
  }

  private static StepProfile.Role roleOf(StepProfile profile, String role) {
    return profile.roles().getOrDefault(role, new StepProfile.Role(0, 0, 0));
  }

  private static void profileRow(
      PrintWriter out, String label, StepProfile[] columns, ToDoubleFunction<StepProfile> value) {
    String[] cells = new String[columns.length];
    for (int i = 0; i < columns.length; i++) {
      if (columns[i] == null) {
        cells[i] = "-";
      } else {
        double v = value.applyAsDouble(columns[i]);
        cells[i] = Double.isNaN(v) ? "-" : format(v);
      }
    }
    out.printf("  %-34s %10s %10s %10s %10s%n", label, cells[0], cells[1], cells[2], cells[3]);
  }

  private void row(PrintWriter out, String label, String key, String unit) {
    Double value = figures.get(key);
    out.printf("  %-34s %12s %s%n", label, value == null ? "-" : format(value), unit);
  }

  /** Three significant digits for small numbers, thousands separators for large ones. */
  static String format(double value) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      return "n/a";
    }
    double abs = Math.abs(value);
    if (abs >= 1000) {
      return String.format(Locale.ROOT, "%,d", Math.round(value));
    }
    if (abs >= 100) {
      return String.format(Locale.ROOT, "%.0f", value);
    }
    if (abs >= 10) {
      return String.format(Locale.ROOT, "%.1f", value);
    }
    return String.format(Locale.ROOT, "%.2f", value);
  }
}
