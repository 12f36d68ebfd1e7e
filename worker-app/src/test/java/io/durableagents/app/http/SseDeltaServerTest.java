package io.durableagents.app.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.agent.Agent;
import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Usage;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelResponse;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.store.AgentStores;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.streaming.Delta;
import io.durableagents.testing.PluginTestEnvironment;
import io.durableagents.testing.SessionUpdates;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.testing.TestWorkflowEnvironment;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SseDeltaServerTest {
  private static final String TASK_QUEUE = "agents-sse-test";

  /**
   * The text of a delta the test publishes itself, behind whatever the server was to send before
   * it.
   */
  private static final String MARKER = "the test's own delta";

  /** Streams its answer a few characters at a time, with some reasoning first. */
  private static final ModelProvider STREAMING_MODEL =
      (request, stream) -> {
        String text =
            "Hello " + request.sessionId() + ", you said: " + request.messages().get(0).text();
        stream.reasoning("The user greets me.");
        for (int i = 0; i < text.length(); i += 4) {
          stream.text(text.substring(i, Math.min(text.length(), i + 4)));
        }
        return new ModelResponse(text, List.of(), FinishReason.STOP, new Usage(5, 5));
      };

  @TempDir Path dir;
  private SseDeltaServer sse;
  private CheckpointStore store;
  private TestWorkflowEnvironment env;

  @BeforeEach
  void start() {
    sse = SseDeltaServer.start(0);
    store = CheckpointStore.of(AgentStores.open("jdbc:sqlite:" + dir.resolve("projection.db")));
    AgentsPlugin plugin =
        new AgentsPlugin(
            AgentsPluginOptions.newBuilder()
                .addAgent(
                    Agent.newBuilder("greeter").setModel("test").setInstructions("Greet.").build())
                .setModelProvider(STREAMING_MODEL)
                .setStore(store)
                .addDeltaListener(sse)
                .build());
    env = PluginTestEnvironment.start(plugin, TASK_QUEUE);
  }

  @AfterEach
  void stop() {
    env.close();
    sse.close();
    store.close();
  }

  @Test
  void aClientOfSessionX_receivesTheDeltasOfARunOnX_inOrder_andNothingOfOtherSessions()
      throws Exception {
    try (SseClient client = SseClient.connect(sse.eventsUrl("x"))) {
      RunResult other = send("y", "not for you");
      RunResult result = send("x", "hi there");

      List<JsonNode> deltas = client.awaitText(result.text().length(), Duration.ofSeconds(10));

      assertThat(other.text()).startsWith("Hello y");
      assertThat(client.text()).isEqualTo(result.text());
      List<Message> stored = store.readMessages("x", result.messageCount());
      assertThat(client.text()).isEqualTo(stored.get(stored.size() - 1).text());
      assertThat(deltas).allSatisfy(d -> assertThat(d.path("sessionId").asText()).isEqualTo("x"));
      assertThat(deltas.get(0).path("kind").asText()).isEqualTo(Delta.REASONING);
      assertThat(deltas.get(0).path("text").asText()).isEqualTo("The user greets me.");
      assertThat(deltas.get(1).path("kind").asText()).isEqualTo(Delta.TEXT);
      assertThat(deltas)
          .allSatisfy(
              d -> {
                assertThat(d.path("step").asInt()).isEqualTo(1);
                assertThat(d.path("attempt").asInt()).isEqualTo(1);
              });
      // Published after both runs answered: once it is read, so is every delta sent before it.
      sse.onDelta(new Delta("x", 99, 1, Delta.TEXT, MARKER));
      List<JsonNode> all =
          client.awaitDelta(
              "the test's delta", SseDeltaServerTest::isMarker, Duration.ofSeconds(10));
      assertThat(all.subList(0, all.size() - 1)).hasSameSizeAs(deltas);
    }
  }

  @Test
  void twoClientsOfOneSession_bothGetEveryDelta() throws Exception {
    try (SseClient first = SseClient.connect(sse.eventsUrl("shared-1"));
        SseClient second = SseClient.connect(sse.eventsUrl("shared-1"))) {
      RunResult result = send("shared-1", "hello");

      first.awaitText(result.text().length(), Duration.ofSeconds(10));
      second.awaitText(result.text().length(), Duration.ofSeconds(10));

      assertThat(first.text()).isEqualTo(result.text());
      assertThat(second.text()).isEqualTo(result.text());
    }
  }

  @Test
  void invalidSessionIdsAndOtherPaths_are404_andOtherMethods405() throws Exception {
    String base = "http://127.0.0.1:" + sse.port();
    assertThat(status("GET", base + "/sessions/bad%20id/events")).isEqualTo(404);
    assertThat(status("GET", base + "/sessions/" + "a".repeat(201) + "/events")).isEqualTo(404);
    assertThat(status("GET", base + "/sessions/a%2Fb/events")).isEqualTo(404);
    assertThat(status("GET", base + "/sessions/x")).isEqualTo(404);
    assertThat(status("GET", base + "/")).isEqualTo(404);
    assertThat(status("POST", base + "/sessions/x/events")).isEqualTo(405);
    String longId = "user@example.com:chat-1_v2." + "a".repeat(150);
    try (SseClient ok = SseClient.connect(sse.eventsUrl(longId))) {
      assertThat(sse.clientCount()).isEqualTo(1);
      // Nothing streams before a delta the test publishes; its arrival shows that it would have.
      sse.onDelta(new Delta(longId, 1, 1, Delta.TEXT, MARKER));
      List<JsonNode> received =
          ok.awaitDelta("the test's delta", SseDeltaServerTest::isMarker, Duration.ofSeconds(10));
      assertThat(received.subList(0, received.size() - 1)).isEmpty();
    }
  }

  @Test
  void close_endsTheOpenStreams() throws Exception {
    SseClient client = SseClient.connect(sse.eventsUrl("closing"));
    sse.close();
    client.awaitEnd(Duration.ofSeconds(10));
    client.close();
    await("the server let go of the stream")
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(20))
        .pollDelay(Duration.ZERO)
        .untilAsserted(() -> assertThat(sse.clientCount()).isZero());
  }

  private static boolean isMarker(JsonNode delta) {
    return MARKER.equals(delta.path("text").asText());
  }

  private static int status(String method, String url) throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(url))
                    .method(method, HttpRequest.BodyPublishers.noBody())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    return response.statusCode();
  }

  private RunResult send(String sessionId, String input) {
    return SessionUpdates.sendWithStart(
        env.getWorkflowClient(),
        TASK_QUEUE,
        new SendRequest(input),
        new SessionStart(sessionId, null, null));
  }
}
