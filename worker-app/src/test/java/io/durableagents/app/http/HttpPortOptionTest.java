package io.durableagents.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.app.cli.AgentsMain;
import io.durableagents.app.cli.WorkerOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code --http-port} of {@code agents worker} and {@code agents dev}; the endpoint runs in {@link
 * AgentWorkerEventsIT}.
 */
class HttpPortOptionTest {
  @Test
  void httpPort_isOffByDefault_andAnOptionOfWorkerAndDev() {
    assertThat(workerOptions("worker").config().httpPort()).isNull();
    assertThat(workerOptions("worker", "--http-port", "8233").config().httpPort()).isEqualTo(8233);
    assertThat(workerOptions("dev", "--http-port", "8234").config().httpPort()).isEqualTo(8234);
  }

  @Test
  void httpPort_outOfRange_isAUsageError() {
    CommandLine commandLine = AgentsMain.commandLine(Map.of());
    StringWriter err = new StringWriter();
    commandLine.setErr(new PrintWriter(err, true));
    commandLine.setOut(new PrintWriter(new StringWriter(), true));

    int exit = commandLine.execute("worker", "--http-port", "70000", "--temporal", "127.0.0.1:1");

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains("--http-port");
  }

  private static WorkerOptions workerOptions(String command, String... args) {
    CommandLine commandLine = AgentsMain.commandLine(Map.of());
    String[] all = new String[args.length + 1];
    all[0] = command;
    System.arraycopy(args, 0, all, 1, args.length);
    commandLine.parseArgs(all);
    return (WorkerOptions)
        commandLine
            .getSubcommands()
            .get(command)
            .getCommandSpec()
            .mixins()
            .get("options")
            .userObject();
  }
}
