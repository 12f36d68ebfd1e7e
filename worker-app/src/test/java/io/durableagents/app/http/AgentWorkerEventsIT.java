package io.durableagents.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.app.AgentWorker;
import io.durableagents.app.EmbeddedTemporalServer;
import io.durableagents.app.WorkerConfig;
import io.durableagents.app.cli.AgentsMain;
import io.durableagents.app.cli.WorkerOptions;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.workflow.RunResult;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code --http-port}: the worker app serves the deltas of the turns it runs. */
class AgentWorkerEventsTest {
  @TempDir Path dir;

  @Test
  void aWorkerWithAnHttpPort_streamsTheDeltasOfItsModelTurns() throws Exception {
    Path script = dir.resolve("script.json");
    Files.writeString(script, "{\"turns\":[{\"text\":\"Streamed over server-sent events.\"}]}");
    WorkerConfig config =
        new WorkerConfig(
                "127.0.0.1:7233", "default", "agents-events", "jdbc:sqlite:" + dir.resolve("projection.db"), "scripted:" + script)
            .withHttpPort(0);
    try (EmbeddedTemporalServer server = EmbeddedTemporalServer.start(0);
        AgentWorker worker = AgentWorker.start(config.withTemporalAddress(server.address()))) {
      assertThat(worker.httpPort()).isPositive();
      try (SseClient client =
          SseClient.connect("http://127.0.0.1:" + worker.httpPort() + "/sessions/events-1/events")) {
        AgentClient agents =
            AgentClient.newInstance(
                worker.client(), AgentClientOptions.newBuilder().taskQueue("agents-events").build());

        RunResult result = agents.send("events-1", "hello");

        client.awaitText(result.text().length(), Duration.ofSeconds(10));
        assertThat(client.text()).isEqualTo("Streamed over server-sent events.").isEqualTo(result.text());
      }
    }
  }

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
        commandLine.getSubcommands().get(command).getCommandSpec().mixins().get("options").userObject();
  }
}
