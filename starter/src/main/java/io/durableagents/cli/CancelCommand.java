package io.durableagents.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code agents cancel SESSION}: cancels the run in progress. */
@Command(
    name = "cancel",
    description = {
      "Cancel the run in progress: in-flight calls are cancelled, calls without a result get",
      "{\"error\": \"cancelled\"}, and the session accepts the next message."
    },
    footer = {"", "Exit codes: 0 cancel requested (or nothing to cancel), 4 no such session."})
public class CancelCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Parameters(index = "0", paramLabel = "SESSION", description = "Session id.")
  String session;

  @Override
  public Integer call() {
    SendCommand.requireValidSession(session);
    try (ConnectionOptions.Connection connected = connection.open(false)) {
      connected.agents().cancel(session);
    }
    spec.commandLine().getOut().println("cancel requested for " + session);
    spec.commandLine().getOut().flush();
    return ExitCodes.OK;
  }
}
