package io.durableagents.model.anthropic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import io.durableagents.conversation.Attachment;
import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import io.durableagents.model.AttachmentContent;
import io.durableagents.model.ModelException;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelProviders;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ModelResponse;
import io.durableagents.model.ModelStream;
import io.durableagents.model.ToolDefinition;
import io.durableagents.testing.RecordingModelStream;
import io.durableagents.workflow.FailureTypes;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AnthropicModelProviderTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final FakeMessagesServer server = new FakeMessagesServer();

  @AfterEach
  void close() {
    server.close();
  }

  private AnthropicModelProvider provider() {
    return AnthropicModelProvider.newBuilder()
        .setBaseUrl(server.baseUrl())
        .setApiKey(FakeMessagesServer.API_KEY)
        .setModel("claude-test")
        .build();
  }

  private static ModelRequest request(List<Message> messages, List<ToolDefinition> tools) {
    return ModelRequest.newBuilder()
        .setSessionId("s-1")
        .setAgent("tester")
        .setModel("agent-model")
        .setInstructions("Be brief.")
        .setMessages(messages)
        .setTools(tools)
        .setStep(1)
        .build();
  }

  private static ModelRequest hello() {
    return request(List.of(Message.user("hello")), List.of());
  }

  @Test
  void textAnswer_streamsEachDeltaInOrder_andReturnsTextStopAndUsage_withTheApisHeaders() {
    server.reply(FakeMessagesServer.stream(Wire.textAnswer("end_turn", "Hello", " there", "!")));
    RecordingModelStream stream = new RecordingModelStream();

    ModelResponse response = provider().generate(hello(), stream);

    assertThat(stream.events).containsExactly("text:Hello", "text: there", "text:!");
    assertThat(response.text()).isEqualTo("Hello there!");
    assertThat(response.toolCalls()).isEmpty();
    assertThat(response.finishReason()).isEqualTo(FinishReason.STOP);
    assertThat(response.usage()).isEqualTo(new Usage(12, 7));
    FakeMessagesServer.Recorded sent = server.requests().get(0);
    assertThat(sent.path()).isEqualTo("/v1/messages");
    assertThat(sent.header("x-api-key")).isEqualTo(FakeMessagesServer.API_KEY);
    // The SDK sends the API version it was built for.
    assertThat(sent.header("anthropic-version")).matches("\\d{4}-\\d{2}-\\d{2}");
    assertThat(sent.header("authorization")).as("no bearer token besides the key").isNull();
    assertThat(sent.json().path("stream").asBoolean()).isTrue();
    assertThat(sent.json().path("model").asText()).isEqualTo("claude-test");
    assertThat(sent.json().path("max_tokens").asLong())
        .isEqualTo(AnthropicModelProvider.DEFAULT_MAX_TOKENS);
  }

  @Test
  void thinkingDeltas_goToTheStreamAsReasoning_andAreNotPartOfTheText() {
    server.reply(
        FakeMessagesServer.stream(
            Wire.messageStart(30)
                + Wire.thinkingStart(0)
                + Wire.thinkingDelta(0, "The user greets; ")
                + Wire.thinkingDelta(0, "greet back.")
                + Wire.signatureDelta(0)
                + Wire.blockStop(0)
                + Wire.textStart(1)
                + Wire.textDelta(1, "Hi!")
                + Wire.blockStop(1)
                + Wire.messageDelta("end_turn", 20)
                + Wire.messageStop()));
    RecordingModelStream stream = new RecordingModelStream();

    ModelResponse response = provider().generate(hello(), stream);

    assertThat(stream.events)
        .containsExactly("reasoning:The user greets; ", "reasoning:greet back.", "text:Hi!");
    assertThat(response.text()).isEqualTo("Hi!");
    assertThat(response.usage()).isEqualTo(new Usage(30, 20));
  }

  @Test
  void toolUse_inputJsonDeltasSplitAcrossEvents_areJoinedPerBlock() {
    server.reply(
        FakeMessagesServer.stream(
            Wire.toolUseAnswer(
                "Checking.",
                120,
                40,
                new Wire.Call("toolu_1", "get_weather", List.of("{\"ci", "ty\": \"Pa", "ris\"}")),
                new Wire.Call(
                    "toolu_2",
                    "find_restaurant",
                    List.of("", "{\"city\":\"Paris\",", "\"people\":2,\"time\":\"19:30\"}")))));
    RecordingModelStream stream = new RecordingModelStream();

    ModelResponse response = provider().generate(hello(), stream);

    assertThat(stream.events).containsExactly("text:Checking.");
    assertThat(response.text()).isEqualTo("Checking.");
    assertThat(response.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    assertThat(response.toolCalls())
        .containsExactly(
            new ToolCall("toolu_1", "get_weather", json("{\"city\":\"Paris\"}")),
            new ToolCall(
                "toolu_2",
                "find_restaurant",
                json("{\"city\":\"Paris\",\"people\":2,\"time\":\"19:30\"}")));
    assertThat(response.usage()).isEqualTo(new Usage(120, 40));
    assertThat(response.problems()).isEmpty();
  }

  @Test
  void toolUseWithoutInputDeltas_hasEmptyArguments_andUnparsableInputIsKeptAsRawText() {
    server.reply(
        FakeMessagesServer.stream(
            Wire.toolUseAnswer(
                "",
                5,
                5,
                new Wire.Call("toolu_1", "now", List.of()),
                new Wire.Call("toolu_2", "add", List.of("{\"a\": 1,", " \"b\": ")))));

    ModelResponse response = provider().generate(hello(), new RecordingModelStream());

    assertThat(response.toolCalls().get(0).arguments()).isEqualTo(JSON.createObjectNode());
    assertThat(response.toolCalls().get(1).arguments())
        .isEqualTo(TextNode.valueOf("{\"a\": 1, \"b\": "));
  }

  @Test
  void stopReasons_mapToFinishReasons() {
    server.reply(
        FakeMessagesServer.stream(Wire.textAnswer("max_tokens", "Cut sho")),
        FakeMessagesServer.stream(Wire.textAnswer("refusal", "I can't")),
        FakeMessagesServer.stream(Wire.textAnswer("stop_sequence", "Done")),
        FakeMessagesServer.stream(Wire.textAnswer("pause_turn", "Wait")));
    AnthropicModelProvider provider = provider();

    assertThat(provider.generate(hello(), new RecordingModelStream()).finishReason())
        .isEqualTo(FinishReason.LENGTH);
    assertThat(provider.generate(hello(), new RecordingModelStream()).finishReason())
        .isEqualTo("content-filter");
    assertThat(provider.generate(hello(), new RecordingModelStream()).finishReason())
        .isEqualTo(FinishReason.STOP);
    assertThat(provider.generate(hello(), new RecordingModelStream()).finishReason())
        .isEqualTo("other");
    assertThat(MessagesStreamAccumulator.finishReason("end_turn", true))
        .isEqualTo(FinishReason.TOOL_CALLS);
    assertThat(MessagesStreamAccumulator.finishReason("end_turn", false))
        .isEqualTo(FinishReason.STOP);
  }

  @Test
  void rateLimited_429WithRetryAfter_isTransientWithThatWait_andTheSdkDoesNotRetry() {
    server.reply(
        FakeMessagesServer.status(
            429,
            Map.of("Content-Type", "application/json", "Retry-After", "7"),
            Wire.errorBody("rate_limit_error", "Number of request tokens has exceeded your limit")),
        FakeMessagesServer.stream(Wire.textAnswer("end_turn", "Hello")));
    AnthropicModelProvider provider = provider();

    ModelException failure =
        modelFailure(() -> provider.generate(hello(), new RecordingModelStream()));

    assertThat(failure.retryable()).isTrue();
    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_RATE_LIMITED);
    assertThat(failure.retryAfter()).isEqualTo(Duration.ofSeconds(7));
    assertThat(failure.getMessage()).contains("HTTP 429", "Number of request tokens");
    assertThat(server.requests()).hasSize(1);
    assertThat(provider.generate(hello(), new RecordingModelStream()).text()).isEqualTo("Hello");
  }

  @Test
  void overloaded529_andServerError500_areTransientModelUnavailable_withoutSdkRetries() {
    server.reply(
        FakeMessagesServer.error(529, "overloaded_error", "Overloaded"),
        FakeMessagesServer.error(500, "api_error", "Internal server error"));
    AnthropicModelProvider provider = provider();

    ModelException overloaded =
        modelFailure(() -> provider.generate(hello(), new RecordingModelStream()));
    ModelException failed =
        modelFailure(() -> provider.generate(hello(), new RecordingModelStream()));

    assertThat(overloaded.retryable()).isTrue();
    assertThat(overloaded.code()).isEqualTo(FailureTypes.MODEL_UNAVAILABLE);
    assertThat(overloaded.getMessage()).contains("HTTP 529", "Overloaded (overloaded_error)");
    assertThat(failed.retryable()).isTrue();
    assertThat(failed.code()).isEqualTo(FailureTypes.MODEL_UNAVAILABLE);
    assertThat(failed.getMessage()).contains("HTTP 500", "Internal server error");
    assertThat(server.requests()).hasSize(2);
  }

  @Test
  void badRequest_400_isPermanentModelRequestInvalid_withTheServersMessage() {
    server.reply(
        FakeMessagesServer.error(
            400, "invalid_request_error", "messages.1.content: tool_use ids must be unique"));

    ModelException failure =
        modelFailure(() -> provider().generate(hello(), new RecordingModelStream()));

    assertThat(failure.retryable()).isFalse();
    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_REQUEST_INVALID);
    assertThat(failure.getMessage())
        .contains("HTTP 400", "tool_use ids must be unique", "invalid_request_error");
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void aPromptOverTheModelsContextWindow_isContextExceeded_notRetried() {
    server.reply(
        FakeMessagesServer.error(
            400, "invalid_request_error", "prompt is too long: 210417 tokens > 200000 maximum"));

    ModelException failure =
        modelFailure(() -> provider().generate(hello(), new RecordingModelStream()));

    assertThat(failure.retryable()).isFalse();
    assertThat(failure.code()).isEqualTo(FailureTypes.CONTEXT_EXCEEDED);
    assertThat(failure.getMessage())
        .contains("HTTP 400", "prompt is too long: 210417 tokens > 200000 maximum");
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void aWrongKey_isPermanent() {
    AnthropicModelProvider wrongKey =
        AnthropicModelProvider.newBuilder()
            .setBaseUrl(server.baseUrl())
            .setApiKey("sk-ant-wrong")
            .setModel("claude-test")
            .build();

    ModelException failure =
        modelFailure(() -> wrongKey.generate(hello(), new RecordingModelStream()));

    assertThat(failure.retryable()).isFalse();
    assertThat(failure.getMessage()).contains("HTTP 401", "invalid x-api-key");
  }

  @Test
  void connectionRefused_isTransientModelUnavailable() throws IOException {
    int port;
    try (ServerSocket socket =
        new ServerSocket(0, 1, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}))) {
      port = socket.getLocalPort();
    }
    AnthropicModelProvider nobody =
        AnthropicModelProvider.newBuilder()
            .setBaseUrl("http://127.0.0.1:" + port)
            .setApiKey(FakeMessagesServer.API_KEY)
            .setModel("claude-test")
            .build();

    ModelException failure =
        modelFailure(() -> nobody.generate(hello(), new RecordingModelStream()));

    assertThat(failure.retryable()).isTrue();
    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_UNAVAILABLE);
  }

  @Test
  void aStreamCutBeforeMessageStop_isIncompleteResponse_keepingTheStreamedTextOnly() {
    server.reply(
        FakeMessagesServer.stream(
            Wire.messageStart(10)
                + Wire.textStart(0)
                + Wire.textDelta(0, "Booking")
                + Wire.blockStop(0)
                + Wire.toolUseStart(1, "toolu_1", "book_table")
                + Wire.inputJsonDelta(1, "{\"restaurant\":")));
    RecordingModelStream stream = new RecordingModelStream();

    ModelException failure = modelFailure(() -> provider().generate(hello(), stream));

    assertThat(failure.code()).isEqualTo(FailureTypes.INCOMPLETE_RESPONSE);
    assertThat(failure.retryable()).isFalse();
    assertThat(failure.getMessage()).contains("before message_stop");
    assertThat(failure.partialText()).isEqualTo("Booking");
    assertThat(stream.events).containsExactly("text:Booking");
  }

  @Test
  void messageStopWithoutAStopReason_isIncompleteResponseToo() {
    server.reply(
        FakeMessagesServer.stream(
            Wire.messageStart(10)
                + Wire.textStart(0)
                + Wire.textDelta(0, "Half")
                + Wire.messageStop()));

    ModelException failure =
        modelFailure(() -> provider().generate(hello(), new RecordingModelStream()));

    assertThat(failure.code()).isEqualTo(FailureTypes.INCOMPLETE_RESPONSE);
    assertThat(failure.getMessage()).contains("without a stop reason");
  }

  @Test
  void anOverloadedErrorEventMidStream_isTransient_andCarriesTheStreamedText() {
    server.reply(
        FakeMessagesServer.stream(
            Wire.messageStart(10)
                + Wire.textStart(0)
                + Wire.textDelta(0, "Let me")
                + Wire.errorEvent("overloaded_error", "Overloaded")));

    ModelException failure =
        modelFailure(() -> provider().generate(hello(), new RecordingModelStream()));

    assertThat(failure.retryable()).isTrue();
    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_UNAVAILABLE);
    assertThat(failure.getMessage()).contains("mid-stream", "Overloaded (overloaded_error)");
    assertThat(failure.partialText()).isEqualTo("Let me");
  }

  @Test
  void errorEventsMidStream_areClassifiedByTheirType() {
    server.reply(
        FakeMessagesServer.stream(
            Wire.messageStart(10) + Wire.errorEvent("rate_limit_error", "slow down")),
        FakeMessagesServer.stream(Wire.messageStart(10) + Wire.errorEvent("api_error", "oops")),
        FakeMessagesServer.stream(
            Wire.messageStart(10) + Wire.errorEvent("invalid_request_error", "prompt too long")));
    AnthropicModelProvider provider = provider();

    ModelException limited =
        modelFailure(() -> provider.generate(hello(), new RecordingModelStream()));
    ModelException apiError =
        modelFailure(() -> provider.generate(hello(), new RecordingModelStream()));
    ModelException invalid =
        modelFailure(() -> provider.generate(hello(), new RecordingModelStream()));

    assertThat(limited.code()).isEqualTo(FailureTypes.MODEL_RATE_LIMITED);
    assertThat(limited.retryable()).isTrue();
    assertThat(apiError.code()).isEqualTo(FailureTypes.MODEL_UNAVAILABLE);
    assertThat(apiError.retryable()).isTrue();
    assertThat(invalid.code()).isEqualTo(FailureTypes.MODEL_REQUEST_INVALID);
    assertThat(invalid.retryable()).isFalse();
    assertThat(invalid.getMessage()).contains("prompt too long");
  }

  @Test
  void anEventThatIsNotJson_isModelResponseInvalid() {
    server.reply(
        FakeMessagesServer.stream(
            Wire.messageStart(10)
                + Wire.event("content_block_delta", "{\"type\":\"content_block_delta\",\"ind")
                + Wire.messageStop()));

    ModelException failure =
        modelFailure(() -> provider().generate(hello(), new RecordingModelStream()));

    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_RESPONSE_INVALID);
    assertThat(failure.retryable()).isFalse();
  }

  @Test
  void malformedEvents_areModelResponseInvalid_namingWhatIsWrong() {
    server.reply(
        FakeMessagesServer.stream(
            Wire.messageStart(10)
                + Wire.event(
                    "content_block_delta",
                    "{\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\","
                        + "\"text\":\"no index\"}}")),
        FakeMessagesServer.stream(
            Wire.messageStart(10) + Wire.textStart(0) + Wire.inputJsonDelta(0, "{\"a\":1}")),
        FakeMessagesServer.stream(Wire.textDelta(0, "before the start")),
        FakeMessagesServer.stream(
            Wire.messageStart(10)
                + Wire.event(
                    "content_block_start",
                    "{\"type\":\"content_block_start\",\"index\":0,"
                        + "\"content_block\":{\"type\":\"tool_use\",\"input\":{}}}")));
    AnthropicModelProvider provider = provider();

    ModelException noIndex =
        modelFailure(() -> provider.generate(hello(), new RecordingModelStream()));
    ModelException notATool =
        modelFailure(() -> provider.generate(hello(), new RecordingModelStream()));
    ModelException early =
        modelFailure(() -> provider.generate(hello(), new RecordingModelStream()));
    ModelException noName =
        modelFailure(() -> provider.generate(hello(), new RecordingModelStream()));

    assertThat(List.of(noIndex, notATool, early, noName))
        .allSatisfy(
            e -> {
              assertThat(e.code()).isEqualTo(FailureTypes.MODEL_RESPONSE_INVALID);
              assertThat(e.retryable()).isFalse();
            });
    assertThat(noIndex.getMessage()).contains("index");
    assertThat(notATool.getMessage()).contains("input_json_delta for block 0");
    assertThat(early.getMessage()).contains("before message_start");
    assertThat(noName.getMessage()).containsAnyOf("id", "name");
  }

  @Test
  void aSilentServer_isATransientTimeout_andTheWaitHeartbeats() throws Exception {
    CountDownLatch hungUp = new CountDownLatch(1);
    server.reply(FakeMessagesServer.silentAfterStart(hungUp, 100, false));
    AnthropicModelProvider provider =
        AnthropicModelProvider.newBuilder()
            .setBaseUrl(server.baseUrl())
            .setApiKey(FakeMessagesServer.API_KEY)
            .setModel("claude-test")
            .setIdleTimeout(Duration.ofMillis(1500))
            .build();
    RecordingModelStream stream = new RecordingModelStream();

    ModelException failure = modelFailure(() -> provider.generate(hello(), stream));

    assertThat(failure.retryable()).isTrue();
    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_TIMEOUT);
    assertThat(stream.alive).isPositive();
    assertThat(hungUp.await(10, TimeUnit.SECONDS)).as("the connection was dropped").isTrue();
  }

  @Test
  void aCancelReportedByText_stopsTheCallAtOnce_andTheServerSeesTheConnectionClose()
      throws Exception {
    CountDownLatch hungUp = new CountDownLatch(1);
    server.reply(FakeMessagesServer.endless("one", 50, hungUp));
    RuntimeException cancelled = new IllegalStateException("activity cancelled");
    RecordingModelStream stream =
        new RecordingModelStream() {
          @Override
          public void text(String delta) {
            super.text(delta);
            if (events.size() == 2) {
              throw cancelled;
            }
          }
        };

    long start = System.nanoTime();
    assertThatThrownBy(() -> provider().generate(hello(), stream)).isSameAs(cancelled);

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(stream.events).containsExactly("text:one", "text: more");
    assertThat(hungUp.await(10, TimeUnit.SECONDS))
        .as("the server noticed the client hung up")
        .isTrue();
  }

  @Test
  void aCancelReportedByAliveWhileTheModelIsSilent_stopsTheCall_andDropsTheConnection()
      throws Exception {
    CountDownLatch hungUp = new CountDownLatch(1);
    server.reply(FakeMessagesServer.silentAfterStart(hungUp, 100, true));
    RuntimeException cancelled = new IllegalStateException("activity cancelled");
    ModelStream stream =
        new RecordingModelStream() {
          @Override
          public void alive() {
            throw cancelled;
          }
        };

    long start = System.nanoTime();
    assertThatThrownBy(() -> provider().generate(hello(), stream)).isSameAs(cancelled);

    // The queue asks alive() after a second of silence (pings are no answer).
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(hungUp.await(10, TimeUnit.SECONDS))
        .as("the server noticed the client hung up")
        .isTrue();
  }

  @Test
  void aCancelBeforeTheApiAnswers_returnsWithinTheAliveInterval() {
    server.reply(
        FakeMessagesServer.delayed(
            10_000, FakeMessagesServer.stream(Wire.textAnswer("end_turn", "late"))));
    RuntimeException cancelled = new IllegalStateException("activity cancelled");
    ModelStream stream =
        new RecordingModelStream() {
          @Override
          public void alive() {
            throw cancelled;
          }
        };

    long start = System.nanoTime();
    assertThatThrownBy(() -> provider().generate(hello(), stream)).isSameAs(cancelled);

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void requestBody_systemAlternationGroupedToolResultsAndTools() throws IOException {
    ToolCall weather = new ToolCall("toolu_1", "get_weather", json("{\"city\":\"Paris\"}"));
    ToolCall restaurant =
        new ToolCall("toolu_2", "find_restaurant", json("{\"city\":\"Paris\",\"people\":2}"));
    ToolCall broken = new ToolCall("toolu_3", "book_table", TextNode.valueOf("{\"restaurant\":"));
    List<Message> conversation =
        List.of(
            Message.user("Book dinner in Paris"),
            Message.assistant("Checking.", List.of(weather, restaurant)),
            Message.toolResult(weather, json("{\"sky\":\"sunny\"}")),
            Message.toolResult(restaurant, json("{\"error\":\"no_table\",\"message\":\"full\"}")),
            Message.user("Any other?"),
            Message.assistant(null, List.of(broken)),
            Message.toolResult(broken, json("{\"error\":\"invalid_arguments\"}")),
            new Message(Role.SYSTEM, "Answer in French.", null, null, null, null));
    List<ToolDefinition> tools =
        List.of(
            new ToolDefinition(
                "get_weather",
                "Current weather for a city.",
                json(
                    "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},"
                        + "\"required\":[\"city\"],\"additionalProperties\":false}")),
            new ToolDefinition("now", null, null));
    server.reply(FakeMessagesServer.stream(Wire.textAnswer("end_turn", "D'accord")));

    provider().generate(request(conversation, tools), new RecordingModelStream());

    JsonNode body = server.requests().get(0).json();
    assertThat(body.path("system").asText()).isEqualTo("Be brief.\n\nAnswer in French.");
    assertThat(body.path("messages"))
        .isEqualTo(
            json(
                """
                [
                 {"role":"user","content":[{"type":"text","text":"Book dinner in Paris"}]},
                 {"role":"assistant","content":[
                   {"type":"text","text":"Checking."},
                   {"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}},
                   {"type":"tool_use","id":"toolu_2","name":"find_restaurant",
                    "input":{"city":"Paris","people":2}}]},
                 {"role":"user","content":[
                   {"type":"tool_result","tool_use_id":"toolu_1","content":"{\\"sky\\":\\"sunny\\"}"},
                   {"type":"tool_result","tool_use_id":"toolu_2",
                    "content":"{\\"error\\":\\"no_table\\",\\"message\\":\\"full\\"}","is_error":true},
                   {"type":"text","text":"Any other?"}]},
                 {"role":"assistant","content":[
                   {"type":"tool_use","id":"toolu_3","name":"book_table","input":{}}]},
                 {"role":"user","content":[
                   {"type":"tool_result","tool_use_id":"toolu_3",
                    "content":"{\\"error\\":\\"invalid_arguments\\"}","is_error":true}]}
                ]
                """));
    assertThat(body.path("tools"))
        .isEqualTo(
            json(
                """
                [
                 {"name":"get_weather","description":"Current weather for a city.",
                  "input_schema":{"type":"object","properties":{"city":{"type":"string"}},
                                  "required":["city"],"additionalProperties":false}},
                 {"name":"now","input_schema":{"type":"object","properties":{}}}
                ]
                """));
  }

  @Test
  void withoutAModelName_theAgentsModelIsSent_andNeitherIsRefused() {
    server.reply(FakeMessagesServer.stream(Wire.textAnswer("end_turn", "ok")));
    AnthropicModelProvider agentsModel =
        AnthropicModelProvider.newBuilder()
            .setBaseUrl(server.baseUrl())
            .setApiKey(FakeMessagesServer.API_KEY)
            .setMaxTokens(512)
            .build();

    agentsModel.generate(hello(), new RecordingModelStream());
    ModelException none =
        modelFailure(
            () ->
                agentsModel.generate(
                    hello().toBuilder().setModel(null).build(), new RecordingModelStream()));

    assertThat(server.requests().get(0).json().path("model").asText()).isEqualTo("agent-model");
    assertThat(server.requests().get(0).json().path("max_tokens").asLong()).isEqualTo(512);
    assertThat(none.code()).isEqualTo(FailureTypes.MODEL_REQUEST_INVALID);
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void attachments_goAsImageAndDocumentBlocks_andOtherTypesAreRefused() {
    byte[] png = {(byte) 0x89, 'P', 'N', 'G'};
    byte[] pdf = "%PDF-1.7".getBytes(StandardCharsets.US_ASCII);
    Message withFiles =
        new Message(
            Role.USER,
            "What is in these?",
            null,
            null,
            null,
            null,
            List.of(
                new Attachment("a-png", "chart.png", "image/png"),
                new Attachment("a-pdf", "menu.pdf", "application/pdf"),
                new Attachment("a-txt", "notes.txt", "text/plain")));
    ModelRequest request =
        hello().toBuilder()
            .setMessages(List.of(withFiles))
            .setAttachments(
                Map.of(
                    "a-png", new AttachmentContent("a-png", "chart.png", "image/png", png),
                    "a-pdf", new AttachmentContent("a-pdf", "menu.pdf", "application/pdf", pdf),
                    "a-txt",
                        new AttachmentContent(
                            "a-txt",
                            "notes.txt",
                            "text/plain; charset=utf-8",
                            "notes".getBytes(StandardCharsets.UTF_8))))
            .build();
    server.reply(FakeMessagesServer.stream(Wire.textAnswer("end_turn", "A chart")));

    provider().generate(request, new RecordingModelStream());

    JsonNode content = server.requests().get(0).json().path("messages").get(0).path("content");
    String b64png = Base64.getEncoder().encodeToString(png);
    String b64pdf = Base64.getEncoder().encodeToString(pdf);
    assertThat(content)
        .isEqualTo(
            json(
                "[{\"type\":\"text\",\"text\":\"What is in these?\"},"
                    + "{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\""
                    + b64png
                    + "\"}},"
                    + "{\"type\":\"document\",\"source\":{\"type\":\"base64\",\"media_type\":\"application/pdf\",\"data\":\""
                    + b64pdf
                    + "\"}},"
                    + "{\"type\":\"document\",\"source\":{\"type\":\"text\",\"media_type\":\"text/plain\",\"data\":\"notes\"}}]"));

    ModelRequest zip =
        hello().toBuilder()
            .setMessages(
                List.of(
                    new Message(
                        Role.USER,
                        "unzip",
                        null,
                        null,
                        null,
                        null,
                        List.of(new Attachment("a-zip", "x.zip", "application/zip")))))
            .setAttachments(
                Map.of(
                    "a-zip",
                    new AttachmentContent("a-zip", "x.zip", "application/zip", new byte[] {1})))
            .build();
    ModelException refused =
        modelFailure(() -> provider().generate(zip, new RecordingModelStream()));
    assertThat(refused.code()).isEqualTo(FailureTypes.MODEL_REQUEST_INVALID);
    assertThat(refused.getMessage()).contains("application/zip");
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void fromSpec_anthropic_usesTheEnvironment() {
    ModelProvider provider =
        ModelProviders.fromSpec(
            "anthropic:claude-sonnet-4-5",
            Map.of("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/", "ANTHROPIC_API_KEY", "sk-secret"));

    assertThat(provider).isInstanceOf(AnthropicModelProvider.class);
    AnthropicModelProvider claude = (AnthropicModelProvider) provider;
    assertThat(claude.baseUrl().toString()).isEqualTo("http://127.0.0.1:9");
    assertThat(claude.model()).isEqualTo("claude-sonnet-4-5");
    assertThat(claude.toString()).doesNotContain("sk-secret");
  }

  @Test
  void fromSpec_anthropic_refusesWhatCannotWork() {
    assertThatThrownBy(() -> ModelProviders.fromSpec("anthropic:claude-sonnet-4-5", Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ANTHROPIC_API_KEY");
    assertThatThrownBy(
            () -> ModelProviders.fromSpec("anthropic:", Map.of("ANTHROPIC_API_KEY", "k")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("anthropic:MODEL");
    assertThatThrownBy(
            () ->
                ModelProviders.fromSpec(
                    "anthropic:m",
                    Map.of("ANTHROPIC_BASE_URL", "ftp://x", "ANTHROPIC_API_KEY", "k")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("http or https");
    assertThatThrownBy(() -> ModelProviders.fromSpec("claude:x", Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("anthropic:MODEL");
  }

  private static ModelException modelFailure(ThrowingCallable call) {
    ModelException failure = catchThrowableOfType(ModelException.class, call);
    assertThat(failure).as("the call fails with a ModelException").isNotNull();
    return failure;
  }

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
