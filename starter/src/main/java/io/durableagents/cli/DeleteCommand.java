package io.durableagents.cli;

import io.durableagents.client.SessionAwaitingApprovalException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code agents delete SESSION [--keep-history] [--force]}: closes and removes a session. */
@Command(
    name = "delete",
    description = {
      "Delete a session: close it, remove its projection rows (its checkpoint history stays",
      "with --keep-history) and its workflow executions from Temporal. Afterwards status",
      "answers no such session."
    },
    footer = {
      "",
      "Exit codes: 0 deleted, 3 an approval is pending (decide it, or --force), 4 no such",
      "session."
    })
public class DeleteCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Parameters(index = "0", paramLabel = "SESSION", description = "Session id.")
  String session;

  @Option(
      names = "--keep-history",
      description =
          "Keep the checkpoint history (and the transcript it refers to) in the projection.")
  boolean keepHistory;

  @Option(
      names = "--force",
      description =
          "Cancel a run in progress, one paused on an approval included (the approval is"
              + " settled as cancelled).")
  boolean force;

  @Override
  public Integer call() {
    SendCommand.requireValidSession(session);
    try (ConnectionOptions.Connection connected = connection.open(false)) {
      WaitHint hint =
          WaitHint.after(
              SendCommand.WAIT_HINT_AFTER,
              "the delete",
              session,
              spec.commandLine().getErr(),
              connection,
              connected);
      try {
        connected.agents().delete(session, keepHistory, force);
      } catch (SessionAwaitingApprovalException e) {
        throw PendingApprovalRefusal.of(
            e,
            "agents delete " + session + (keepHistory ? " --keep-history" : ""),
            connected.agents());
      } finally {
        hint.cancel();
      }
    }
    spec.commandLine()
        .getOut()
        .println(
            RunResultPrinter.printable(session)
                + " deleted"
                + (keepHistory ? "; its checkpoint history is kept" : ""));
    spec.commandLine().getOut().flush();
    return ExitCodes.OK;
  }
}
