package io.durableagents.app.cli;

import io.durableagents.cli.CliException;
import io.durableagents.cli.ConnectionOptions;
import io.durableagents.cli.ExitCodes;
import io.durableagents.console.AgentConsole;
import io.durableagents.console.ConsoleOptions;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code agents console}: the back office (approvals inbox, sessions, REST API) until Ctrl-C. */
@Command(
    name = "console",
    description = {
      "Serve the back office until Ctrl-C: the approvals inbox, the session browser and the REST",
      "API (docs/console.md), connected like the other commands. Binds 127.0.0.1 unless --bind",
      "says otherwise; any other address needs --tokens or --trusted-header."
    },
    footer = {"", "Exit codes: 0 ok, 1 error, 2 usage."})
public class ConsoleCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Mixin ConsoleServerOptions console;

  @Override
  public Integer call() {
    ConsoleOptions options = console.options(connection.namespace());
    PrintWriter out = spec.commandLine().getOut();
    Foreground foreground = Foreground.install(spec.commandLine().getErr());
    ConnectionOptions.Connection connected = foreground.own(connection.open());
    AgentConsole started = foreground.own(start(connected, options));
    out.println(readyLine(started));
    out.println("Ctrl-C to stop.");
    out.flush();
    foreground.awaitShutdown();
    return ExitCodes.OK;
  }

  private AgentConsole start(ConnectionOptions.Connection connected, ConsoleOptions options) {
    try {
      return AgentConsole.start(connected.agents(), connected.projection(), options);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage() + ".");
    } catch (RuntimeException e) {
      throw new CliException(
          ExitCodes.ERROR,
          "cannot serve the console on "
              + options.getBind()
              + ":"
              + options.getPort()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /** {@code console at http://127.0.0.1:8080/ (approvals inbox; sessions at .../sessions)}. */
  static String readyLine(AgentConsole console) {
    return "console at "
        + console.url()
        + " (approvals inbox; sessions at "
        + console.url()
        + "sessions)";
  }
}
