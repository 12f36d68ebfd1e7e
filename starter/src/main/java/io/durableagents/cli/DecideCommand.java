package io.durableagents.cli;

import io.durableagents.client.DecisionOptions;
import io.durableagents.workflow.DecisionOutcome;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.Decision;
import io.durableagents.workflow.internal.wire.InputChecks;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The shared body of {@code approve} and {@code reject}: decide, then (unless {@code --no-wait})
 * wait for the run to settle again and print its result, like {@code send}.
 */
abstract class DecideCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Parameters(index = "0", paramLabel = "SESSION", description = "Session id.")
  String session;

  @Parameters(index = "1", paramLabel = "APPROVAL_ID", description = "The approval to decide.")
  String approvalId;

  @Option(
      names = "--note",
      paramLabel = "TEXT",
      description = "A note kept with the decision (a rejection's result carries it).")
  String note;

  @Option(
      names = "--by",
      paramLabel = "NAME",
      description = "Who decides, not blank (default: the user name).")
  String decidedBy;

  @Option(names = "--no-wait", description = "Decide and return without waiting for the run.")
  boolean noWait;

  @Option(names = "--json", description = "Print the run result as one JSON document.")
  boolean json;

  abstract boolean approved();

  @Override
  public Integer call() {
    SendCommand.requireValidSession(session);
    if (decidedBy != null && decidedBy.isBlank()) {
      // An empty name would be stored as who decided: an audit trail with nobody in it.
      throw new CliException(
          ExitCodes.USAGE,
          "--by needs a name, got "
              + (decidedBy.isEmpty() ? "an empty one" : "only whitespace")
              + " (leave it out to use the user name).");
    }
    String by = decidedBy != null ? decidedBy : System.getProperty("user.name", "cli");
    // Before connecting: a decision over a limit is never sent (exit 2).
    String problem = InputChecks.decisionProblem(new Decision(approvalId, approved(), note, by));
    if (problem != null) {
      throw new CliException(ExitCodes.USAGE, problem, null);
    }
    PrintWriter out = spec.commandLine().getOut();
    try (ConnectionOptions.Connection connected = connection.open()) {
      DecisionOptions decision =
          DecisionOptions.newBuilder().setNote(note).setDecidedBy(by).build();
      WaitHint hint =
          WaitHint.after(
              SendCommand.WAIT_HINT_AFTER,
              "the run",
              session,
              spec.commandLine().getErr(),
              connection,
              connected);
      DecisionOutcome outcome;
      RunResult result = null;
      try {
        outcome =
            approved()
                ? connected.agents().approve(session, approvalId, decision)
                : connected.agents().reject(session, approvalId, decision);
        if (!noWait) {
          result = connected.agents().awaitRun(session);
        }
      } finally {
        hint.cancel();
      }
      if (noWait) {
        if (json) {
          RunResultPrinter.printJson(outcome, out);
        } else {
          out.println(
              outcome.outcome() + ": " + outcome.toolName() + " (" + outcome.toolCallId() + ")");
          out.flush();
        }
        return ExitCodes.OK;
      }
      RunResultPrinter.print(result, json, out);
      return ExitCodes.forStatus(result.status());
    }
  }
}
