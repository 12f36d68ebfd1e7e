package io.durableagents.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.app.AgentWorker;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.WorkerConfig;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.workflow.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --http-port}: the worker app serves the deltas of the turns it runs, on the real Temporal
 * server.
 */
class AgentWorkerEventsIT {
  @TempDir Path dir;

  @Test
  void aWorkerWithAnHttpPort_streamsTheDeltasOfItsModelTurns() throws Exception {
    Path script = dir.resolve("script.json");
    Files.writeString(script, "{\"turns\":[{\"text\":\"Streamed over server-sent events.\"}]}");
    WorkerConfig config =
        new WorkerConfig(
                "127.0.0.1:7233",
                "default",
                "agents-events",
                "jdbc:sqlite:" + dir.resolve("projection.db"),
                "scripted:" + script)
            .withHttpPort(0);
    try (TemporalDevServer server = RealTemporal.start(dir);
        AgentWorker worker = AgentWorker.start(config.withTemporalAddress(server.address()))) {
      assertThat(worker.httpPort()).isPositive();
      try (SseClient client =
          SseClient.connect(
              "http://127.0.0.1:" + worker.httpPort() + "/sessions/events-1/events")) {
        AgentClient agents =
            AgentClient.newInstance(
                worker.client(),
                AgentClientOptions.newBuilder().setTaskQueue("agents-events").build());

        RunResult result = agents.send("events-1", "hello");

        client.awaitText(result.text().length(), Duration.ofSeconds(10));
        assertThat(client.text())
            .isEqualTo("Streamed over server-sent events.")
            .isEqualTo(result.text());
      }
    }
  }
}
