package io.durableagents.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of one bench run: a flat JSON object of numbers ({@code --json}) or a table.
 *
 * <p>Keys: {@code stepOverheadRatio} (= {@code stepOverheadRatio1}), {@code stepOverheadRatio64},
 * {@code stepsPerSecond1|64}, {@code baselineStepsPerSecond1|64}, {@code historyBytesPerTurnEarly},
 * {@code historyBytesPerTurnLate}, {@code historyGrowthRatio}, {@code approvalResumeMsP50},
 * {@code approvalResumeRatio}, {@code forkLatencyRatio}, {@code forkLatencyMsLong}, {@code
 * forkLatencyMsShort}, {@code bytesPerWaitingSession}, {@code coldReplayMsPer100Turns}, and the
 * supporting figures the table shows.
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
  private final Map<String, Double> figures = new LinkedHashMap<>();
  private StepAnatomy anatomy;
  private final Map<String, Map<String, ActivityTimings.Timing>> timings = new LinkedHashMap<>();

  BenchReport(BenchConfig config, String target) {
    this.config = config;
    this.target = target;
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

  /** Where the time of a session run under {@code label} went. */
  void activityTimings(String label, Map<String, ActivityTimings.Timing> byKind) {
    timings.put(label, byKind);
  }

  /** One JSON object: every figure, rounded to what the measurement can tell. */
  String toJson() {
    ObjectNode root = JSON.createObjectNode();
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
    out.printf("Durable agents bench (%s) · %s · %d CPUs · %.0f s%n",
        config.name(), target, Runtime.getRuntime().availableProcessors(), figures.getOrDefault("benchSeconds", 0.0));
    out.printf("(system load average %s at the start, %s at the end: other processes share these CPUs)%n",
        format(figures.getOrDefault("loadAverageAtStart", Double.NaN)),
        format(figures.getOrDefault("loadAverageAtEnd", Double.NaN)));
    out.println();

    out.println("Agent step: scripted model turn + 1 no-op tool call + the product's checkpoints,");
    out.println("against a hand-written workflow running a no-op model and a no-op tool activity");
    out.printf("  %-26s %12s %12s %10s%n", "", "plugin", "baseline", "ratio");
    stepRow(out, "1 session, steps/s", "1");
    stepRow(out, config.concurrency() + " sessions, steps/s", "64");
    out.printf("  (median of %d alternating rounds; %d steps per session alone, %d at once;%n",
        config.rounds(), config.stepsPerSession1(), config.stepsPerSessionN());
    out.println("   ratio = time per plugin step / time per baseline step, median of the per-round ratios)");
    if (anatomy != null) {
      StringBuilder mix = new StringBuilder();
      anatomy.tasksPerStep.forEach(
          (type, n) -> mix.append(mix.length() == 0 ? "" : ", ").append(format(n)).append(' ').append(type));
      out.printf("  per step: %s activities + %s local activities (%s),%n",
          format(anatomy.activities), format(anatomy.localActivities), mix);
      out.printf("  %s workflow tasks, %s history events; baseline: 2 activities, 2 workflow tasks%n",
          format(anatomy.workflowTasks), format(anatomy.events));
    }
    timings.forEach(
        (label, byKind) -> {
          out.printf("  where a session's time went (%s), mean ms:%n", label);
          out.printf("    %-26s %8s %12s %10s%n", "", "count", "queue wait", "run");
          byKind.forEach(
              (kind, t) ->
                  out.printf("    %-26s %8d %12s %10s%n", kind, t.count(), format(t.queueMs()), format(t.runMs())));
        });
    out.println();

    out.printf("History: %d-turn session, about %d chars of new content per turn%n",
        config.historyTurns(), config.contentChars());
    row(out, String.format("bytes/turn, turns %d-%d", config.earlyFrom(), config.earlyTo()), "historyBytesPerTurnEarly", "B");
    row(out, String.format("bytes/turn, turns %d-%d", config.lateFrom(), config.lateTo()), "historyBytesPerTurnLate", "B");
    row(out, "growth (late / early)", "historyGrowthRatio", "");
    row(out, String.format("ms/turn, turns %d-%d", config.earlyFrom(), config.earlyTo()), "stepMsEarly", "ms");
    row(out, String.format("ms/turn, turns %d-%d", config.lateFrom(), config.lateTo()), "stepMsLate", "ms");
    row(out, "whole history", "historyTotalBytes", "B");
    row(out, "events", "historyEvents", "");
    row(out, "workflow runs (continue-as-new)", "historyRuns", "");
    if (anatomy != null) {
      out.println("  bytes per turn by event (turns " + config.earlyFrom() + "-" + config.lateTo() + "):");
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

    out.printf("Cold replay of the %d-turn session (evicted from the worker cache first; median of %d)%n",
        config.historyTurns(), config.replayRepeats());
    row(out, "status query", "coldReplayMs", "ms");
    row(out, "status query per 100 turns", "coldReplayMsPer100Turns", "ms");
    row(out, "empty send per 100 turns", "coldReplaySendMsPer100Turns", "ms");
    row(out, "warm status query (cached)", "warmStatusQueryMs", "ms");
    out.println();

    out.printf("Memory: %d sessions paused at an approval (heap after GC, this JVM)%n", config.waitingSessions());
    row(out, "heap per waiting session", "bytesPerWaitingSession", "B");
    row(out, "  of which the worker's", "bytesPerWaitingSessionWorker", "B");
    out.println("  (the first figure includes the in-process test server's state when it is embedded;");
    out.println("   the second is what stopping the worker released, less the idle worker: cached workflows;");
    out.println("   the worker caches at most 600 workflows, the SDK default, so it stops growing past that)");
    out.flush();
  }

  private void stepRow(PrintWriter out, String label, String suffix) {
    out.printf("  %-26s %12s %12s %10s%n", label,
        format(get("stepsPerSecond" + suffix)),
        format(get("baselineStepsPerSecond" + suffix)),
        format(get("stepOverheadRatio" + suffix)));
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
