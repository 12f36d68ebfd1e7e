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

/** {@code agents close SESSION [--force]}: completes the session's workflow after its run. */
@Command(
    name = "close",
    description = {
      "Close a session: the run in progress finishes, then its workflow completes. The",
      "projection keeps everything; a later send starts it again from its last entry."
    },
    footer = {
      "",
      "Exit codes: 0 closed (or already closed), 3 an approval is pending (decide it, or",
      "--force), 4 no such session."
    })
public class CloseCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Parameters(index = "0", paramLabel = "SESSION", description = "Session id.")
  String session;

  @Option(
      names = "--force",
      description =
          "Cancel a run in progress, one paused on an approval included (the approval is"
              + " settled as cancelled).")
  boolean force;

  @Override
  public Integer call() {
    SendCommand.requireValidSession(session);
    SessionStatus status;
    try (ConnectionOptions.Connection connected = connection.open(false)) {
      WaitHint hint =
          WaitHint.after(
              SendCommand.WAIT_HINT_AFTER,
              "the close",
              session,
              spec.commandLine().getErr(),
              connection,
              connected);
      try {
        status = connected.agents().close(session, force);
      } catch (SessionAwaitingApprovalException e) {
        throw PendingApprovalRefusal.of(e, "agents close " + session, connected.agents());
      } finally {
        hint.cancel();
      }
    }
    spec.commandLine()
        .getOut()
        .println(
            RunResultPrinter.printable(session)
                + " closed after "
                + RunResultPrinter.plural(status.run(), "run")
                + " ("
                + status.status()
                + "); a send starts it again");
    spec.commandLine().getOut().flush();
    return ExitCodes.OK;
  }
}
