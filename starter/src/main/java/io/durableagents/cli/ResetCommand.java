package io.durableagents.cli;

import io.durableagents.client.SessionAwaitingApprovalException;
import io.durableagents.workflow.SessionStatus;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code agents reset SESSION STEP [--force]}: moves a session back to one of its entries. */
@Command(
    name = "reset",
    description = {
      "Move a session back to its history entry STEP, under the same id: its workflow is",
      "closed (the run in progress finishes first), then a new one goes on from the entry's",
      "transcript and business state. The later entries stay in 'agents history', marked",
      "superseded by the reset."
    },
    footer = {
      "",
      "Exit codes: 0 reset, 2 the entry was superseded by an earlier reset, 3 an approval is",
      "pending (decide it, or --force), 4 no such session or no such entry (nothing changed)."
    })
public class ResetCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Parameters(index = "0", paramLabel = "SESSION", description = "Session id.")
  String session;

  @Parameters(
      index = "1",
      paramLabel = "STEP",
      description = "The history entry to go back to (see 'agents history').")
  int step;

  @Option(
      names = "--force",
      description =
          "Cancel a run in progress, one paused on an approval included (the approval is"
              + " settled as cancelled), instead of letting it finish.")
  boolean force;

  @Override
  public Integer call() {
    SendCommand.requireValidSession(session);
    SessionStatus status;
    try (ConnectionOptions.Connection connected = connection.open(true)) {
      WaitHint hint =
          WaitHint.after(
              SendCommand.WAIT_HINT_AFTER,
              "the reset",
              session,
              spec.commandLine().getErr(),
              connection,
              connected);
      try {
        status = connected.agents().reset(session, step, force);
      } catch (SessionAwaitingApprovalException e) {
        throw PendingApprovalRefusal.of(
            e, "agents reset " + session + " " + step, connected.agents());
      } finally {
        hint.cancel();
      }
    }
    spec.commandLine()
        .getOut()
        .println(
            RunResultPrinter.printable(session)
                + " reset to step "
                + step
                + " ("
                + status.status()
                + ", "
                + RunResultPrinter.plural(status.messageCount(), "message")
                + "); its later entries are kept, marked superseded");
    spec.commandLine().getOut().flush();
    return ExitCodes.OK;
  }
}
