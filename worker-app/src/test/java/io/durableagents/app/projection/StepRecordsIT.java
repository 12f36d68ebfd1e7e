package io.durableagents.app.projection;

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
import io.durableagents.client.HistoryEntry;
import io.durableagents.client.ProjectionReader;
import io.durableagents.conversation.Usage;
import io.durableagents.session.RunRecord;
import io.durableagents.session.RunStatus;
import io.durableagents.session.StepRecord;
import io.durableagents.workflow.RunResult;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Step records end to end: the real Temporal dev server, an {@code agents worker} process whose
 * model is an OpenAI-compatible server on loopback. A run with a model turn, a tool call and a
 * final turn records one timed step row for each, with the model turns' tokens; a run whose model
 * stream is cut mid-answer records its failed turn with the text streamed before the cut; both runs
 * record when they started and settled; {@code agents history} shows the steps with their durations
 * and the partial text.
 */
class StepRecordsIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TASK_QUEUE = "step-records";

  /** A duration as {@code agents history} prints it, however long a busy machine made it. */
  private static final String DURATION = "(\\d+ ms|\\d+\\.\\d\\d s|\\d+ min \\d+ s)";

  private static final long MODEL_DELAY_MS = 200;

  /** A model step names the agent's model (the worker's demo agent declares this one). */
  private static final String MODEL = "scripted";

  @TempDir Path dir;

  /**
   * Asks for the weather, then answers the tool's result; cuts the stream of a story mid-answer.
   * Every answer comes after {@link #MODEL_DELAY_MS}, so a model turn's duration is measurable.
   */
  private static final class ModelServer implements AutoCloseable {
    final HttpServer http;

    ModelServer() throws IOException {
      http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      http.createContext("/v1/chat/completions", this::answer);
      http.start();
    }

    String baseUrl() {
      return "http://127.0.0.1:" + http.getAddress().getPort() + "/v1";
    }

    private void answer(HttpExchange exchange) throws IOException {
      JsonNode messages = JSON.readTree(exchange.getRequestBody()).path("messages");
      JsonNode last = messages.get(messages.size() - 1);
      String wire;
      if ("tool".equals(last.path("role").asText())) {
        wire = chunk("{\"content\":\"It is sunny.\"}", "stop") + usage(11, 4) + "data: [DONE]\n\n";
      } else if (last.path("content").asText().contains("story")) {
        // No finish reason: the stream is cut mid-answer.
        wire = chunk("{\"content\":\"Once upon \"}", null) + chunk("{\"content\":\"a ti\"}", null);
      } else {
        wire =
            chunk(
                    "{\"tool_calls\":[{\"index\":0,\"id\":\"call_w\",\"type\":\"function\","
                        + "\"function\":{\"name\":\"get_weather\","
                        + "\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}]}",
                    "tool_calls")
                + usage(7, 3)
                + "data: [DONE]\n\n";
      }
      try {
        Thread.sleep(MODEL_DELAY_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      byte[] body = wire.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }

    private static String chunk(String delta, String finishReason) {
      return "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":"
          + delta
          + ",\"finish_reason\":"
          + (finishReason == null ? "null" : "\"" + finishReason + "\"")
          + "}]}\n\n";
    }

    private static String usage(int prompt, int completion) {
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
  void modelTurnsAndToolCallsAreRecordedWithTheirTimes_andAFailedTurnKeepsItsStreamedText()
      throws Exception {
    String projection = "jdbc:sqlite:" + dir.resolve("projection.db");
    try (TemporalDevServer server = RealTemporal.start(dir);
        ModelServer model = new ModelServer();
        AgentsProcesses processes = new AgentsProcesses(dir)) {
      processes.environment("OPENAI_BASE_URL", model.baseUrl());
      processes.startAndAwait(
          "worker polling task queue '" + TASK_QUEUE + "'",
          "worker",
          "--temporal",
          server.address(),
          "--task-queue",
          TASK_QUEUE,
          "--projection",
          projection,
          "--model",
          "openai:test-model");
      WorkflowServiceStubs service = AgentWorker.connect(server.address());
      try {
        AgentClient agents =
            AgentClient.newInstance(
                WorkflowClient.newInstance(service),
                AgentClientOptions.newBuilder().setTaskQueue(TASK_QUEUE).build());
        long before = System.currentTimeMillis();

        RunResult answered = agents.send("steps-1", "What is the weather in Paris?");
        RunResult failed = agents.send("steps-1", "Tell me a story");

        long after = System.currentTimeMillis();
        assertThat(answered.status()).isEqualTo(RunStatus.FINISHED);
        assertThat(answered.text()).isEqualTo("It is sunny.");
        assertThat(failed.status()).isEqualTo(RunStatus.FAILED);
        assertThat(failed.error().code()).isEqualTo("incomplete_response");

        List<StepRecord> steps = new ArrayList<>();
        List<RunRecord> runs;
        try (ProjectionReader reader = ProjectionReader.open(projection)) {
          List<HistoryEntry> history = new ArrayList<>(reader.history("steps-1", 0));
          java.util.Collections.reverse(history);
          history.forEach(entry -> steps.addAll(entry.checkpoint().steps()));
          runs = reader.runs("steps-1");
        }
        System.out.println("steps: " + steps + "\nruns: " + runs);

        assertThat(steps)
            .extracting(StepRecord::kind, StepRecord::name, StepRecord::usage, StepRecord::error)
            .containsExactly(
                org.assertj.core.groups.Tuple.tuple("model", MODEL, new Usage(7, 3), null),
                org.assertj.core.groups.Tuple.tuple("tool", "get_weather", Usage.ZERO, null),
                org.assertj.core.groups.Tuple.tuple("model", MODEL, new Usage(11, 4), null),
                org.assertj.core.groups.Tuple.tuple(
                    "model",
                    MODEL,
                    Usage.ZERO,
                    "incomplete_response: " + failed.error().message()));
        for (StepRecord step : steps) {
          assertThat(step.startedAt()).as(step.toString()).isBetween(before, after);
          assertThat(step.finishedAt()).as(step.toString()).isBetween(step.startedAt(), after);
        }
        // The model answered each call after its delay: the worker timed the provider call.
        assertThat(steps.get(0).durationMs()).isGreaterThanOrEqualTo(MODEL_DELAY_MS);
        assertThat(steps.get(3).durationMs()).isGreaterThanOrEqualTo(MODEL_DELAY_MS);
        // The tool ran after the turn that asked for it, and the answer after the tool.
        assertThat(steps.get(1).startedAt()).isGreaterThanOrEqualTo(steps.get(0).finishedAt());
        assertThat(steps.get(2).startedAt()).isGreaterThanOrEqualTo(steps.get(1).finishedAt());
        assertThat(steps.get(3).text()).isEqualTo("Once upon a ti");
        assertThat(steps.subList(0, 3)).extracting(StepRecord::text).containsOnlyNulls();

        assertThat(runs)
            .extracting(RunRecord::run, RunRecord::status)
            .containsExactly(
                org.assertj.core.groups.Tuple.tuple(1, RunStatus.FINISHED),
                org.assertj.core.groups.Tuple.tuple(2, RunStatus.FAILED));
        for (RunRecord run : runs) {
          assertThat(run.startedAt()).as(run.toString()).isBetween(before, after);
          assertThat(run.finishedAt()).as(run.toString()).isBetween(run.startedAt(), after);
        }
        assertThat(runs.get(0).startedAt()).isLessThanOrEqualTo(steps.get(0).startedAt());
        assertThat(runs.get(0).finishedAt()).isGreaterThanOrEqualTo(steps.get(2).finishedAt());
        assertThat(runs.get(1).startedAt()).isGreaterThanOrEqualTo(runs.get(0).finishedAt());

        AgentsProcesses.Result shown =
            processes.run(Duration.ofSeconds(60), "history", "steps-1", "--projection", projection);
        System.out.println(shown.out());
        assertThat(shown.exitCode()).isEqualTo(0);
        assertThat(shown.out())
            .containsPattern(
                "(?m)^\\s*\\d+\\s+tool\\s+get_weather\\s+\\S+ \\S+\\s+" + DURATION + "\\s+-\\s+-")
            .containsPattern(
                "(?m)^\\s*\\d+\\s+model\\s+scripted\\s+\\S+ \\S+\\s+" + DURATION + "\\s+7 / 3\\s+-")
            .containsPattern("(?m)^\\s*\\d+\\s+model\\s+scripted\\s+.*incomplete_response")
            .contains("streamed before the failure at step")
            .contains(": Once upon a ti")
            .containsPattern("(?m)^\\s*1\\s+finished\\s+.*" + DURATION)
            .containsPattern("(?m)^\\s*2\\s+failed\\s+");
      } finally {
        service.shutdownNow();
      }
    }
  }
}
