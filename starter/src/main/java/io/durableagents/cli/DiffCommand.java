package io.durableagents.cli;

import io.durableagents.workflow.ToolCallRecord;
import io.durableagents.workflow.Trajectories;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code agents diff A B}: compares two sessions' trajectories step by step. */
@Command(
    name = "diff",
    description = "Compare the trajectories of two sessions (e.g. a session and its fork).",
    footer = {"", "Exit codes: 0 compared, 4 a session has no history."})
public class DiffCommand implements Callable<Integer> {
  private static final int COLUMN = 48;

  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Parameters(index = "0", paramLabel = "SESSION_A")
  String sessionA;

  @Parameters(index = "1", paramLabel = "SESSION_B")
  String sessionB;

  @Option(names = "--json", description = "Print the comparison as one JSON document.")
  boolean json;

  @Override
  public Integer call() {
    SendCommand.requireValidSession(sessionA);
    SendCommand.requireValidSession(sessionB);
    PrintWriter out = spec.commandLine().getOut();
    Trajectories.Comparison diff;
    try (ConnectionOptions.Connection connected = connection.open()) {
      diff = connected.agents().compare(sessionA, sessionB);
    }
    if (json) {
      RunResultPrinter.printJson(diff, out);
      return ExitCodes.OK;
    }
    out.println(pad("step  " + sessionA) + " │ " + sessionB);
    out.println("─".repeat(COLUMN) + "─┼─" + "─".repeat(COLUMN));
    int steps = Math.max(diff.stepsA().size(), diff.stepsB().size());
    for (int i = 0; i < steps; i++) {
      List<String> left = describe(diff.stepsA(), i);
      List<String> right = describe(diff.stepsB(), i);
      String mark = diff.divergedAt() != null && diff.divergedAt() == i ? "≠" : " ";
      for (int line = 0; line < Math.max(left.size(), right.size()); line++) {
        String prefix = line == 0 ? String.format("%-3d%s  ", i, mark) : "      ";
        out.println(
            pad(prefix + (line < left.size() ? left.get(line) : ""))
                + " │ "
                + (line < right.size() ? right.get(line) : ""));
      }
    }
    out.println();
    out.println(
        diff.divergedAt() == null
            ? "The trajectories do not diverge."
            : "Diverged at step " + diff.divergedAt() + ".");
    Trajectories.Drift drift = diff.drift();
    out.println(
        "Drift: tool order "
            + (drift.toolOrder() ? "differs" : "same")
            + "; arguments "
            + (drift.arguments().isEmpty() ? "same" : "differ at " + drift.arguments())
            + "; step count "
            + diff.stepsA().size()
            + " vs "
            + diff.stepsB().size()
            + "; finish reason "
            + diff.finishReasonA()
            + " vs "
            + diff.finishReasonB()
            + ".");
    out.flush();
    return ExitCodes.OK;
  }

  private static List<String> describe(List<Trajectories.Step> steps, int index) {
    if (index >= steps.size()) {
      return List.of("—");
    }
    Trajectories.Step step = steps.get(index);
    java.util.ArrayList<String> lines = new java.util.ArrayList<>();
    if (step.text() != null && !step.text().isEmpty()) {
      lines.add(RunResultPrinter.printable(step.text()));
    }
    for (ToolCallRecord call : step.toolCalls()) {
      lines.add(
          "→ "
              + call.name()
              + " "
              + RunResultPrinter.compactJson(call.arguments(), 30)
              + " = "
              + RunResultPrinter.compactJson(call.result(), 40));
    }
    return lines.isEmpty() ? List.of("(empty)") : lines;
  }

  private static String pad(String text) {
    String cut = text.length() > COLUMN ? text.substring(0, COLUMN - 1) + "…" : text;
    return String.format("%-" + COLUMN + "s", cut);
  }
}
