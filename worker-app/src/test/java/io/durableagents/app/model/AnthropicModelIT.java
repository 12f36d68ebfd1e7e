package io.durableagents.app.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.durableagents.app.AgentWorker;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.testing.AgentsProcesses;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.RunResult;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code agents worker --model anthropic:MODEL} end to end: the real Temporal dev server, a worker
 * process whose model is a Messages API server on loopback (found through {@code
 * ANTHROPIC_BASE_URL}, with the key from {@code ANTHROPIC_API_KEY}). The demo concierge checks the
 * weather and a restaurant, waits for the booking's approval, books once approved and finishes with
 * the model's answer.
 */
class AnthropicModelIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TASK_QUEUE = "anthropic-model";
  private static final String API_KEY = "sk-ant-it-key";
  private static final String FINAL =
      "Booked: a table for 2 at Le Petit Zinc at 19:30, and the evening will be sunny.";

  @TempDir Path dir;

  /**
   * Answers {@code POST /v1/messages} as the Messages API streams: weather and restaurant first,
   * the booking once both results are in, the final answer after the booking's result. Refuses a
   * request without the key or the {@code anthropic-version} header, as the API does.
   */
  private static final class MessagesServer implements AutoCloseable {
    final HttpServer http;
    final List<JsonNode> requests = new CopyOnWriteArrayList<>();

    MessagesServer() throws IOException {
      http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      http.createContext("/v1/messages", this::answer);
      http.start();
    }

    String baseUrl() {
      return "http://127.0.0.1:" + http.getAddress().getPort();
    }

    private void answer(HttpExchange exchange) throws IOException {
      JsonNode body = JSON.readTree(exchange.getRequestBody());
      if (!API_KEY.equals(exchange.getRequestHeaders().getFirst("x-api-key"))
          || exchange.getRequestHeaders().getFirst("anthropic-version") == null) {
        byte[] refusal =
            "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"no key\"}}"
                .getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(401, refusal.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(refusal);
        }
        return;
      }
      requests.add(body);
      JsonNode messages = body.path("messages");
      List<String> answered = messages.get(messages.size() - 1).findValuesAsText("tool_use_id");
      String wire;
      if (answered.contains("toolu_book")) {
        wire =
            start(318)
                + event(
                    "content_block_start", 0, "\"content_block\":{\"type\":\"text\",\"text\":\"\"}")
                + textDelta(FINAL.substring(0, 30))
                + textDelta(FINAL.substring(30))
                + stop("end_turn", 27);
      } else if (answered.isEmpty()) {
        wire =
            start(182)
                + toolUse(0, "toolu_weather", "get_weather", "{\"city\": \"Paris\"}")
                + toolUse(
                    1,
                    "toolu_find",
                    "find_restaurant",
                    "{\"city\": \"Paris\", \"people\": 2, \"time\": \"19:30\"}")
                + stop("tool_use", 41);
      } else {
        wire =
            start(265)
                + toolUse(
                    0,
                    "toolu_book",
                    "book_table",
                    "{\"restaurant\": \"Le Petit Zinc\", \"people\": 2, \"time\": \"19:30\"}")
                + stop("tool_use", 38);
      }
      exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
      exchange.sendResponseHeaders(200, 0);
      try (OutputStream out = exchange.getResponseBody()) {
        for (String event : wire.split("(?<=\n\n)", -1)) {
          out.write(event.getBytes(StandardCharsets.UTF_8));
          out.flush();
        }
      }
    }

    private static String start(int inputTokens) {
      return "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\","
          + "\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-test\",\"content\":[],"
          + "\"stop_reason\":null,\"usage\":{\"input_tokens\":"
          + inputTokens
          + ",\"output_tokens\":1}}}\n\n"
          + "event: ping\ndata: {\"type\":\"ping\"}\n\n";
    }

    private static String event(String type, int index, String fields) {
      return "event: "
          + type
          + "\ndata: {\"type\":\""
          + type
          + "\",\"index\":"
          + index
          + ","
          + fields
          + "}\n\n";
    }

    private static String textDelta(String text) {
      return event(
          "content_block_delta",
          0,
          "\"delta\":{\"type\":\"text_delta\",\"text\":" + quote(text) + "}");
    }

    /** A tool_use block whose input arrives in two input_json_delta fragments. */
    private static String toolUse(int index, String id, String name, String input) {
      int half = input.length() / 2;
      return event(
              "content_block_start",
              index,
              "\"content_block\":{\"type\":\"tool_use\",\"id\":\""
                  + id
                  + "\",\"name\":\""
                  + name
                  + "\",\"input\":{}}")
          + event(
              "content_block_delta",
              index,
              "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":"
                  + quote(input.substring(0, half))
                  + "}")
          + event(
              "content_block_delta",
              index,
              "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":"
                  + quote(input.substring(half))
                  + "}")
          + "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":"
          + index
          + "}\n\n";
    }

    private static String stop(String stopReason, int outputTokens) {
      return "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\""
          + stopReason
          + "\"},\"usage\":{\"output_tokens\":"
          + outputTokens
          + "}}\n\n"
          + "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    }

    private static String quote(String text) {
      try {
        return JSON.writeValueAsString(text);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public void close() {
      http.stop(0);
    }
  }

  @Test
  void theConciergeOnClaudeBooksAfterTheApproval_andFinishesWithTheModelsAnswer() throws Exception {
    try (TemporalDevServer server = RealTemporal.start(dir);
        MessagesServer model = new MessagesServer();
        AgentsProcesses processes = new AgentsProcesses(dir)) {
      processes.environment("ANTHROPIC_BASE_URL", model.baseUrl());
      processes.environment("ANTHROPIC_API_KEY", API_KEY);
      processes.startAndAwait(
          "worker polling task queue '" + TASK_QUEUE + "'",
          "worker",
          "--temporal",
          server.address(),
          "--task-queue",
          TASK_QUEUE,
          "--projection",
          "jdbc:sqlite:" + dir.resolve("projection.db"),
          "--model",
          "anthropic:claude-test");
      WorkflowServiceStubs service = AgentWorker.connect(server.address());
      try {
        AgentClient agents =
            AgentClient.newInstance(
                WorkflowClient.newInstance(service),
                AgentClientOptions.newBuilder().setTaskQueue(TASK_QUEUE).build());

        RunResult paused = agents.send("claude-it-1", "Dinner for two in Paris at 19:30, please.");
        assertThat(paused.status()).as(paused.toString()).isEqualTo(RunStatus.AWAITING_APPROVAL);
        assertThat(paused.approval().toolName()).isEqualTo("book_table");

        agents.approve("claude-it-1", paused.approval().approvalId());
        RunResult done = agents.awaitRun("claude-it-1");

        assertThat(done.status()).as(done.toString()).isEqualTo(RunStatus.FINISHED);
        assertThat(done.text()).isEqualTo(FINAL);
        assertThat(model.requests).hasSize(3);
        assertThat(model.requests)
            .allSatisfy(r -> assertThat(r.path("model").asText()).isEqualTo("claude-test"));
        // The booking's result reached the model: the tool ran after the approval.
        JsonNode last = model.requests.get(2).path("messages");
        assertThat(last.get(last.size() - 1).path("content").get(0).path("content").asText())
            .contains("Le Petit Zinc", "BK-");
      } finally {
        service.shutdownNow();
      }
    }
  }
}
