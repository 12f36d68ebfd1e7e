package io.durableagents.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.durableagents.app.cli.AgentsMain;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.SendOptions;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.RunResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The pre-deploy check on the real dev server: a session that ran on a worker replays with this
 * build, fetched by {@code agents replay --from-server} and as the Temporal CLI exports it.
 */
class ReplayFromServerIT {
  private static final String SCRIPT =
      """
      {"turns": [
        {"text": "Checking.", "toolCalls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
        {"text": "Sunny."},
        {"text": "Still sunny."}
      ]}
      """;
  private static final String QUERY = "WorkflowType = 'AgentSession' AND WorkflowId = 'replay-1'";

  private record Outcome(int exitCode, String out, String err) {}

  @TempDir Path dir;

  @Test
  void aSessionThatRanOnTheServer_replays_fromTheServer_andFromTheCliExport() throws Exception {
    Path script = Files.writeString(dir.resolve("script.json"), SCRIPT);
    try (TemporalDevServer server = RealTemporal.start(dir);
        AgentWorker worker =
            AgentWorker.start(
                new WorkerConfig(
                    server.address(),
                    WorkerConfig.DEFAULT_NAMESPACE,
                    WorkerConfig.DEFAULT_TASK_QUEUE,
                    "jdbc:sqlite:" + dir.resolve("projection.db"),
                    "scripted:" + script))) {
      AgentClient agents = AgentClient.newInstance(worker.client());
      SendOptions concierge = SendOptions.newBuilder().setAgent("concierge").build();
      RunResult first = agents.send("replay-1", "weather?", concierge);
      RunResult second = agents.send("replay-1", "and now?", concierge);
      assertThat(first.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(second.status()).isEqualTo(RunStatus.FINISHED);

      String runId =
          worker.client().newUntypedWorkflowStub("replay-1").describe().getExecution().getRunId();
      // Visibility is eventually consistent: the run is listed a moment after it started.
      Outcome fromServer =
          await()
              .atMost(Duration.ofSeconds(30))
              .until(
                  () ->
                      replay(
                          "--from-server", QUERY, "--limit", "5", "--temporal", server.address()),
                  outcome -> outcome.exitCode() != 1 || !outcome.err().contains("No workflow run"));
      assertThat(fromServer.exitCode()).as(fromServer.err() + fromServer.out()).isZero();
      assertThat(fromServer.out().lines().toList())
          .containsExactly("OK   replay-1 " + runId, "1 replayed, 0 failed.");

      Path exported = dir.resolve("replay-1.json");
      exportWithTheTemporalCli(server.address(), exported);
      Outcome fromFile = replay(exported.toString());
      assertThat(fromFile.exitCode()).as(fromFile.err() + fromFile.out()).isZero();
      assertThat(fromFile.out().lines().toList())
          .containsExactly("OK   replay-1 " + runId, "1 replayed, 0 failed.");

      Outcome nothing =
          replay(
              "--from-server",
              "WorkflowType = 'AgentSession' AND WorkflowId = 'no-such-session'",
              "--temporal",
              server.address());
      assertThat(nothing.exitCode()).isEqualTo(1);
      assertThat(nothing.err()).contains("nothing was replayed");

      Outcome invalid = replay("--from-server", "WorkflowType = ", "--temporal", server.address());
      assertThat(invalid.exitCode()).as(invalid.err()).isEqualTo(2);
      assertThat(invalid.err())
          .startsWith("Invalid visibility query 'WorkflowType = ': ")
          .doesNotContain("Unexpected error")
          .doesNotContain("INVALID_ARGUMENT");
    }
  }

  private Outcome replay(String... args) throws IOException {
    Path config = dir.resolve("temporal.toml");
    if (!Files.exists(config)) {
      Files.writeString(config, "");
    }
    CommandLine commandLine =
        AgentsMain.commandLine(Map.of("TEMPORAL_CONFIG_FILE", config.toString()));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    List<String> all = new ArrayList<>(List.of("replay"));
    all.addAll(List.of(args));
    int exitCode = commandLine.execute(all.toArray(String[]::new));
    return new Outcome(exitCode, out.toString(), err.toString());
  }

  private static void exportWithTheTemporalCli(String address, Path file) throws Exception {
    Process process =
        new ProcessBuilder(
                RealTemporal.cli().toString(),
                "workflow",
                "show",
                "--workflow-id",
                "replay-1",
                "--output",
                "json",
                "--address",
                address)
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .redirectOutput(file.toFile())
            .start();
    assertThat(process.waitFor(90, TimeUnit.SECONDS))
        .as("temporal workflow show finished")
        .isTrue();
    assertThat(process.exitValue()).as(Files.readString(file)).isZero();
  }
}
