package io.durableagents.model.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.projection.internal.StoredEntry;
import io.durableagents.session.RunStatus;
import io.durableagents.streaming.Delta;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The OpenAI provider behind a real session: retries, failures and streaming end to end. */
class OpenAiSessionWorkflowTest {
  @TempDir Path dir;
  private final FakeChatCompletionsServer server = new FakeChatCompletionsServer();
  private OpenAiSessionTestKit kit;

  private OpenAiSessionTestKit kit() {
    kit = new OpenAiSessionTestKit(dir, server);
    return kit;
  }

  @AfterEach
  void close() {
    if (kit != null) {
      kit.close();
    }
    server.close();
  }

  @Test
  void rateLimitedThenAnswered_theRunRetriesAndFinishes() {
    server.reply(
        FakeChatCompletionsServer.status(
            429,
            Map.of("Content-Type", "application/json", "Retry-After", "1"),
            "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}"),
        FakeChatCompletionsServer.stream(Wire.PLAIN_ANSWER));

    RunResult result = kit().send("openai-429", "hello");

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(result.text()).isEqualTo("Hello there!");
    assertThat(result.usage().inputTokens()).isEqualTo(19);
    assertThat(server.requests()).hasSize(2);
    assertThat(server.requests().get(1).json()).isEqualTo(server.requests().get(0).json());
  }

  @Test
  void badRequest_failsTheRunWithModelRequestInvalid_withoutRetry_andWritesTheFailedCheckpoint() {
    server.reply(
        FakeChatCompletionsServer.status(
            400,
            Map.of("Content-Type", "application/json"),
            "{\"error\":{\"message\":\"Invalid value for 'messages[1].role'.\","
                + "\"type\":\"invalid_request_error\",\"param\":\"messages\",\"code\":\"invalid_value\"}}"));

    RunResult result = kit().send("openai-400", "hello");

    assertThat(result.status()).isEqualTo(RunStatus.FAILED);
    assertThat(result.finishReason()).isEqualTo(FinishReason.ERROR);
    assertThat(result.error().code()).isEqualTo("model_request_invalid");
    assertThat(result.error().message()).contains("Invalid value for 'messages[1].role'");
    assertThat(server.requests()).hasSize(1);
    List<StoredEntry> history = kit.store.history("openai-400", 0);
    assertThat(history).isNotEmpty();
    assertThat(history.get(0).status()).isEqualTo(RunStatus.FAILED);
    assertThat(history.get(0).finishReason()).isEqualTo(FinishReason.ERROR);
    assertThat(kit.store.readMessages("openai-400", result.messageCount()))
        .containsExactly(Message.user("hello"));
  }

  /**
   * A message larger than the model's window by itself: no view of the conversation can be smaller
   * (the run's own input is never left out), so the turn is not sent again; the run fails with
   * {@code context_exceeded} without an activity retry, and the session keeps what it said before.
   */
  @Test
  void aRunOverTheModelsContextWindow_failsWithContextExceeded_withoutRetry() {
    server.contextWindow(600).reply(FakeChatCompletionsServer.stream(Wire.PLAIN_ANSWER));
    assertThat(kit().send("openai-window", "hello").status()).isEqualTo(RunStatus.FINISHED);

    RunResult result = kit.send("openai-window", "Please read this. ".repeat(200));

    assertThat(result.status()).isEqualTo(RunStatus.FAILED);
    assertThat(result.error().code()).isEqualTo("context_exceeded");
    assertThat(result.error().message()).contains("maximum context length is 600 tokens");
    assertThat(server.requests()).hasSize(2);
    assertThat(kit.store.readMessages("openai-window", result.messageCount()))
        .extracting(Message::text)
        .containsExactly("hello", "Hello there!", "Please read this. ".repeat(200));
  }

  /**
   * A long session against a server whose window is far smaller than the model family's default (a
   * proxy, a self-hosted model): its first refusal teaches the session the budget, the turn is sent
   * again without the earlier exchanges, and every run finishes; the transcript keeps every
   * message.
   */
  @Test
  void aLongSessionPastTheServersWindow_finishesEveryRun_andKeepsEveryMessage() {
    int runs = 12;
    server.contextWindow(1_500);
    for (int run = 0; run < runs; run++) {
      server.reply(FakeChatCompletionsServer.stream(Wire.PLAIN_ANSWER));
    }
    kit();
    for (int run = 0; run < runs; run++) {
      RunResult result =
          kit.send("openai-long", "Message " + run + ": " + "Please read this. ".repeat(50));
      assertThat(result.status())
          .as("run %d: %s", run + 1, result.error())
          .isEqualTo(RunStatus.FINISHED);
    }
    assertThat(kit.store.readMessages("openai-long", runs * 2)).hasSize(runs * 2);
    long refused =
        server.requests().stream().filter(request -> request.body().length() / 4 > 1_500).count();
    assertThat(refused).as("requests refused for length").isBetween(1L, 3L);
    assertThat(server.requests()).hasSize(runs + (int) refused);
  }

  @Test
  void streamCutBeforeTheFinishPart_failsWithIncompleteResponse_andNoToolRuns() {
    server.reply(FakeChatCompletionsServer.stream(Wire.CUT_AFTER_TOOL_CALL));

    RunResult result = kit().send("openai-cut", "add 1 and 2");

    assertThat(result.status()).isEqualTo(RunStatus.FAILED);
    assertThat(result.error().code()).isEqualTo("incomplete_response");
    assertThat(result.toolCalls()).isEmpty();
    assertThat(kit.effects).isEmpty();
    assertThat(server.requests()).hasSize(1);
    assertThat(kit.store.readMessages("openai-cut", result.messageCount()))
        .containsExactly(Message.user("add 1 and 2"));
    assertThat(kit.store.history("openai-cut", 0).get(0).status()).isEqualTo(RunStatus.FAILED);
  }

  @Test
  void streamedTextDeltas_concatenateToTheStoredAssistantTextOfEachStep() {
    server.reply(
        FakeChatCompletionsServer.stream(Wire.TOOL_CALLS),
        FakeChatCompletionsServer.stream(
            Wire.answer("1 + 2", " = ", "3", ", and you said ", "\"x\".")));

    RunResult result = kit().send("openai-deltas", "add 1 and 2, echo x");

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(result.text()).isEqualTo("1 + 2 = 3, and you said \"x\".");
    assertThat(kit.effects).hasSize(2);
    List<Message> assistant =
        kit.store.readMessages("openai-deltas", result.messageCount()).stream()
            .filter(m -> m.role() == Role.ASSISTANT)
            .toList();
    assertThat(assistant).hasSize(2);
    Map<Integer, String> streamed =
        kit.deltas.stream()
            .filter(Delta::isText)
            .collect(
                Collectors.groupingBy(
                    Delta::step,
                    java.util.TreeMap::new,
                    Collectors.mapping(Delta::text, Collectors.joining())));
    assertThat(streamed.values()).containsExactly(assistant.get(0).text(), assistant.get(1).text());
    assertThat(kit.deltas)
        .allSatisfy(
            d -> {
              assertThat(d.sessionId()).isEqualTo("openai-deltas");
              assertThat(d.attempt()).isEqualTo(1);
            });
    assertThat(
            kit.deltas.stream()
                .filter(d -> d.step() == streamed.keySet().iterator().next())
                .map(Delta::text))
        .containsExactly("Let me add.");
    // The second request carried the first turn and the tool results back to the model.
    assertThat(server.requests().get(1).json().path("messages").findValuesAsText("role"))
        .containsExactly("system", "user", "assistant", "tool", "tool");
  }

  @Test
  void cancelWhileTheModelStreams_stopsTheHttpCall_andNoDeltaArrivesAfterwards() throws Exception {
    CountDownLatch hungUp = new CountDownLatch(1);
    server.reply(FakeChatCompletionsServer.endless("Once upon", 100, hungUp));
    kit();
    CompletableFuture<RunResult> run =
        CompletableFuture.supplyAsync(() -> kit.send("openai-cancel", "tell a story"));
    // Cancel well after the first heartbeat, which the SDK sends at once; later ones it throttles.
    await("20 deltas streamed")
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(50))
        .untilAsserted(() -> assertThat(kit.deltas).hasSizeGreaterThanOrEqualTo(20));

    long cancelledAt = System.nanoTime();
    kit.client.newWorkflowStub(AgentSessionWorkflow.class, "openai-cancel").cancel("enough");
    RunResult result = run.get(60, TimeUnit.SECONDS);

    assertThat(result.status()).isEqualTo(RunStatus.CANCELLED);
    // The activity learns of the cancel from the answer to its next heartbeat, which the plugin's
    // cancel check interval (1 s) lets through, stops forwarding and abandons the HTTP call.
    assertThat(hungUp.await(60, TimeUnit.SECONDS)).as("the HTTP call was abandoned").isTrue();
    int delivered = kit.deltas.size();
    // Deltas are forwarded on the activity's thread: once the worker has shut down, every
    // activity it ran has returned, and no delta can arrive any more.
    kit.env.shutdown();
    kit.env.awaitTermination(30, TimeUnit.SECONDS);
    assertThat(kit.deltas).hasSize(delivered);
    long lastDelta = kit.deltaArrivals.get(kit.deltaArrivals.size() - 1);
    assertThat(TimeUnit.NANOSECONDS.toMillis(lastDelta - cancelledAt))
        .as("ms from the cancel to the last delta (a delta every 100 ms until then)")
        .isLessThan(3_000);
    assertThat(kit.store.readMessages("openai-cancel", result.messageCount()))
        .extracting(Message::role)
        .containsExactly(Role.USER);
  }
}
