package io.durableagents.app.hostile;

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
import io.durableagents.conversation.Usage;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.RunResult;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Malformed model output end to end: the real Temporal dev server, an {@code agents worker} process
 * whose model is an OpenAI-compatible server on loopback that answers some messages with a
 * malformed turn. Each such run settles {@code failed} with {@code model_response_invalid} within
 * seconds, the model is asked once (no retry), and the next message is answered. A malformed model
 * script stops the worker before it starts, naming the turn and the field.
 */
class HostileModelOutputIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TASK_QUEUE = "hostile-model";
  private static final Duration SETTLED_WITHIN = Duration.ofSeconds(10);

  @TempDir Path dir;

  /** An OpenAI-compatible server: a malformed stream for the inputs it knows, else "fine". */
  private static final class MalformedModelServer implements AutoCloseable {
    final HttpServer http;
    final AtomicInteger requests = new AtomicInteger();

    MalformedModelServer() throws IOException {
      http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      http.createContext("/v1/chat/completions", this::answer);
      http.start();
    }

    String baseUrl() {
      return "http://127.0.0.1:" + http.getAddress().getPort() + "/v1";
    }

    private void answer(HttpExchange exchange) throws IOException {
      requests.incrementAndGet();
      JsonNode messages = JSON.readTree(exchange.getRequestBody()).path("messages");
      String input = messages.get(messages.size() - 1).path("content").asText();
      String wire =
          switch (input) {
            case "no-name" ->
                chunk(
                        "{\"tool_calls\":[{\"index\":0,\"id\":\"call_n\",\"type\":\"function\","
                            + "\"function\":{\"arguments\":\"{}\"}}]}",
                        null)
                    + chunk("{}", "tool_calls")
                    + usage("1", "1");
            case "negative-usage" -> chunk("{\"content\":\"x\"}", "stop") + usage("-7", "2");
            case "huge-usage" ->
                chunk("{\"content\":\"x\"}", "stop") + usage("99999999999999999999", "2");
            case "duplicate-ids" ->
                chunk("{\"tool_calls\":[" + weatherCall(0) + "," + weatherCall(1) + "]}", null)
                    + chunk("{}", "tool_calls")
                    + usage("1", "1");
            default -> chunk("{\"content\":\"fine\"}", "stop") + usage("5", "2");
          };
      byte[] body = (wire + "data: [DONE]\n\n").getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }

    private static String weatherCall(int index) {
      return "{\"index\":"
          + index
          + ",\"id\":\"call_dup\",\"type\":\"function\","
          + "\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}";
    }

    private static String chunk(String delta, String finishReason) {
      return "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":"
          + delta
          + ",\"finish_reason\":"
          + (finishReason == null ? "null" : "\"" + finishReason + "\"")
          + "}]}\n\n";
    }

    private static String usage(String prompt, String completion) {
      return "data: {\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":"
          + prompt
          + ",\"completion_tokens\":"
          + completion
          + "}}\n\n";
    }

    @Override
    public void close() {
      http.stop(0);
    }
  }

  @Test
  void aMalformedProviderTurn_settlesTheRunFailedWithTheNamedCode_andTheNextSendIsAnswered()
      throws Exception {
    try (TemporalDevServer server = RealTemporal.start(dir);
        MalformedModelServer model = new MalformedModelServer();
        AgentsProcesses processes = new AgentsProcesses(dir)) {
      processes.environment("OPENAI_BASE_URL", model.baseUrl());
      processes.startAndAwait(
          "worker polling task queue '" + TASK_QUEUE + "'",
          "worker",
          "--temporal",
          server.address(),
          "--task-queue",
          TASK_QUEUE,
          "--model",
          "openai:test-model");
      WorkflowServiceStubs service = AgentWorker.connect(server.address());
      try {
        AgentClient agents =
            AgentClient.newInstance(
                WorkflowClient.newInstance(service),
                AgentClientOptions.newBuilder().setTaskQueue(TASK_QUEUE).build());

        for (String input : List.of("no-name", "negative-usage", "huge-usage", "duplicate-ids")) {
          int requestsBefore = model.requests.get();
          long started = System.nanoTime();

          RunResult failed = agents.send("hostile-1", input);

          Duration took = Duration.ofNanos(System.nanoTime() - started);
          System.out.println(
              input + ": " + failed.status() + " in " + took.toMillis() + " ms: " + failed.error());
          assertThat(failed.status()).as(input).isEqualTo(RunStatus.FAILED);
          assertThat(failed.error().code()).as(input).isEqualTo("model_response_invalid");
          assertThat(took).as(input + ": settled within seconds").isLessThan(SETTLED_WITHIN);
          assertThat(model.requests.get() - requestsBefore)
              .as(input + ": asked once, not retried")
              .isEqualTo(1);
          assertThat(failed.toolCalls()).as(input + ": no tool ran").isEmpty();
        }

        long started = System.nanoTime();
        RunResult next = agents.send("hostile-1", "hello");

        assertThat(next.status()).isEqualTo(RunStatus.FINISHED);
        assertThat(next.text()).isEqualTo("fine");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(SETTLED_WITHIN);
        // The refused turns added nothing to the session's totals.
        assertThat(agents.status("hostile-1").orElseThrow().usage()).isEqualTo(new Usage(5, 2));
      } finally {
        service.shutdownNow();
      }
    }
  }

  @Test
  void aMalformedModelScript_stopsTheWorkerBeforeItStarts_withOneLineNamingTheTurnAndField()
      throws Exception {
    Path script = dir.resolve("script.json");
    Files.writeString(
        script, "{\"turns\": [{\"text\": \"hi\"}, {\"toolCalls\": {\"name\": \"get_weather\"}}]}");
    try (AgentsProcesses processes = new AgentsProcesses(dir)) {
      long started = System.nanoTime();

      AgentsProcesses.Result worker =
          processes.run(Duration.ofSeconds(60), "worker", "--model", "scripted:" + script);

      assertThat(worker.exitCode()).isEqualTo(2);
      assertThat(worker.err().strip())
          .isEqualTo(
              script
                  + ": Model script turns[1].toolCalls must be an array of {\"name\", \"arguments\"} objects,"
                  + " not an object.");
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
    }
  }
}
