package io.durableagents.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.client.AgentClient;
import io.durableagents.client.ProjectionReader;
import io.durableagents.console.AgentConsole;
import io.durableagents.console.ConsoleOptions;
import io.durableagents.streaming.Delta;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A console in a process of its own shows the deltas of a worker's model turns by following the
 * worker's events endpoint ({@code agents console --worker-events URL}): a delta the worker serves
 * reaches a client of the console's session events, and only for that session.
 */
class ConsoleWorkerEventsTest {
  @TempDir Path dir;

  @Test
  void aWorkersDeltas_reachTheConsolesClients_ofThatSession() throws Exception {
    WorkflowServiceStubs unreachable =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:1").build());
    ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor();
    try (SseDeltaServer events = SseDeltaServer.start(0);
        ProjectionReader projection =
            ProjectionReader.open("jdbc:sqlite:" + dir.resolve("projection.db"));
        AgentConsole console =
            AgentConsole.start(
                AgentClient.newInstance(WorkflowClient.newInstance(unreachable)),
                projection,
                ConsoleOptions.newBuilder()
                    .setPort(0)
                    .addWorkerEvents(URI.create("http://127.0.0.1:" + events.port()))
                    .build());
        SseClient watching = SseClient.connect(console.url() + "api/sessions/chat-1/events")) {
      // The console follows the worker once a client watches: until then the worker's deltas
      // reach nobody, as deltas before a client connects never do. So the worker keeps streaming.
      var streaming =
          worker.scheduleAtFixedRate(
              () -> {
                events.onDelta(new Delta("chat-2", 1, 1, Delta.TEXT, "not this session"));
                events.onDelta(new Delta("chat-1", 3, 1, Delta.TEXT, "Sunny in Paris"));
              },
              0,
              100,
              TimeUnit.MILLISECONDS);

      var deltas =
          watching.awaitDelta(
              "a delta of chat-1 from the worker",
              delta -> "Sunny in Paris".equals(delta.path("text").asText()),
              Duration.ofSeconds(15));

      streaming.cancel(false);
      assertThat(deltas)
          .allSatisfy(
              delta -> {
                assertThat(delta.path("sessionId").asText()).isEqualTo("chat-1");
                assertThat(delta.path("step").asInt()).isEqualTo(3);
                assertThat(delta.path("kind").asText()).isEqualTo("text");
              });
    } finally {
      worker.shutdownNow();
      unreachable.shutdownNow();
    }
  }
}
