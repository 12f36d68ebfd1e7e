package io.durableagents.cli;

import io.durableagents.client.HistoryEntry;
import io.durableagents.session.RunRecord;
import io.durableagents.session.StepRecord;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The timing part of {@code agents history}: a session's runs with when they started and settled,
 * and the model turns and tool calls of its history entries with their durations, errors and
 * tokens; the text a failed model turn streamed before it failed, on a line of its own.
 */
final class StepPrinter {
  private static final int ERROR_WIDTH = 48;
  private static final int PARTIAL_TEXT_WIDTH = 120;

  private StepPrinter() {}

  /** The runs, first run first. */
  static void printRuns(List<RunRecord> runs, PrintWriter out) {
    if (runs.isEmpty()) {
      return;
    }
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"RUN", "STATUS", "STARTED AT", "FINISHED AT", "DURATION"});
    for (RunRecord run : runs) {
      rows.add(
          new String[] {
            String.valueOf(run.run()),
            RunResultPrinter.printable(String.valueOf(run.status())),
            ProjectionPrinter.time(run.startedAt()),
            run.finishedAt() == null ? "-" : ProjectionPrinter.time(run.finishedAt()),
            duration(run.durationMs())
          });
    }
    out.println();
    ProjectionPrinter.printTable(rows, new boolean[] {true, false, false, false, true}, out);
  }

  /** The steps of the entries (newest entry first, each entry's steps in the order taken). */
  static void printSteps(List<HistoryEntry> entries, PrintWriter out) {
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {"STEP", "KIND", "NAME", "STARTED AT", "DURATION", "TOKENS IN/OUT", "ERROR"});
    List<String> partialTexts = new ArrayList<>();
    for (HistoryEntry entry : entries) {
      for (StepRecord step : entry.checkpoint().steps()) {
        rows.add(
            new String[] {
              String.valueOf(entry.step()),
              step.kind(),
              step.name() == null ? "-" : RunResultPrinter.printable(step.name()),
              step.startedAt() == null ? "-" : ProjectionPrinter.time(step.startedAt()),
              duration(step.durationMs()),
              StepRecord.MODEL.equals(step.kind())
                  ? step.usage().inputTokens() + " / " + step.usage().outputTokens()
                  : "-",
              step.error() == null
                  ? "-"
                  : ProjectionPrinter.cut(RunResultPrinter.printable(step.error()), ERROR_WIDTH)
            });
        if (step.text() != null && StepRecord.COMPACTION.equals(step.kind())) {
          partialTexts.add(
              "compaction at step "
                  + entry.step()
                  + ": "
                  + ProjectionPrinter.cut(
                      RunResultPrinter.printable(step.text()), PARTIAL_TEXT_WIDTH));
        } else if (step.text() != null) {
          partialTexts.add(
              "streamed before the failure at step "
                  + entry.step()
                  + ": "
                  + ProjectionPrinter.cut(
                      RunResultPrinter.printable(step.text()), PARTIAL_TEXT_WIDTH));
        }
      }
    }
    if (rows.size() == 1) {
      return;
    }
    out.println();
    ProjectionPrinter.printTable(
        rows, new boolean[] {true, false, false, false, true, true, false}, out);
    partialTexts.forEach(out::println);
  }

  /** {@code 850 ms}, {@code 1.25 s}, {@code 3 min 20 s}; {@code -} when unknown. */
  static String duration(Long millis) {
    if (millis == null) {
      return "-";
    }
    if (millis < 1000) {
      return millis + " ms";
    }
    if (millis < 60_000) {
      return String.format(Locale.ROOT, "%.2f s", millis / 1000.0);
    }
    return millis / 60_000 + " min " + (millis % 60_000) / 1000 + " s";
  }
}
