package io.durableagents.model.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import io.durableagents.model.ModelException;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelProviders;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ModelResponse;
import io.durableagents.model.ToolDefinition;
import io.durableagents.streaming.Delta;
import io.durableagents.streaming.internal.DeltaForwardingStream;
import io.durableagents.testing.RecordingModelStream;
import io.durableagents.workflow.FailureTypes;
import io.temporal.client.ActivityCanceledException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OpenAiModelProviderTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final FakeChatCompletionsServer server = new FakeChatCompletionsServer();

  @AfterEach
  void close() {
    server.close();
  }

  private OpenAiModelProvider provider() {
    return OpenAiModelProvider.newBuilder()
        .setBaseUrl(server.baseUrl())
        .setApiKey("sk-test-key")
        .setModel("gpt-4o-mini")
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
  void plainAnswer_streamsEachTextDeltaInOrder_andReturnsTextStopAndUsage() {
    server.reply(FakeChatCompletionsServer.stream(Wire.PLAIN_ANSWER));
    RecordingModelStream stream = new RecordingModelStream();

    ModelResponse response = provider().generate(hello(), stream);

    assertThat(stream.events).containsExactly("text:Hello", "text: there", "text:!");
    assertThat(response.text()).isEqualTo("Hello there!");
    assertThat(response.toolCalls()).isEmpty();
    assertThat(response.finishReason()).isEqualTo(FinishReason.STOP);
    assertThat(response.usage()).isEqualTo(new Usage(19, 3));
  }

  @Test
  void attachments_goToTheServerAsContentParts_textImageAndFile() {
    server.reply(FakeChatCompletionsServer.stream(Wire.PLAIN_ANSWER));
    Message withFiles =
        new Message(
            Role.USER,
            "see attached",
            null,
            null,
            null,
            null,
            List.of(
                new io.durableagents.conversation.Attachment("a-1", "notes.txt", "text/plain"),
                new io.durableagents.conversation.Attachment("a-2", "chart.png", "image/png"),
                new io.durableagents.conversation.Attachment(
                    "a-3", "invoice.pdf", "application/pdf")));
    ModelRequest request =
        ModelRequest.newBuilder()
            .setSessionId("s-1")
            .setAgent("tester")
            .setModel("agent-model")
            .setInstructions("Be brief.")
            .setMessages(List.of(withFiles))
            .setTools(List.of())
            .setStep(1)
            .setAttachments(
                Map.of(
                    "a-1",
                        new io.durableagents.model.AttachmentContent(
                            "a-1",
                            "notes.txt",
                            "text/plain",
                            "hello notes".getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                    "a-2",
                        new io.durableagents.model.AttachmentContent(
                            "a-2", "chart.png", "image/png", new byte[] {1, 2}),
                    "a-3",
                        new io.durableagents.model.AttachmentContent(
                            "a-3", "invoice.pdf", "application/pdf", new byte[] {3})))
            .build();

    provider().generate(request, new RecordingModelStream());

    JsonNode content = server.requests().get(0).json().path("messages").get(1).path("content");
    assertThat(content.get(0).path("type").asText()).isEqualTo("text");
    assertThat(content.get(0).path("text").asText()).isEqualTo("see attached");
    assertThat(content.get(1).path("text").asText()).isEqualTo("hello notes");
    assertThat(content.get(2).path("image_url").path("url").asText())
        .isEqualTo("data:image/png;base64,AQI=");
    assertThat(content.get(3).path("file").path("filename").asText()).isEqualTo("invoice.pdf");
    assertThat(content.get(3).path("file").path("file_data").asText())
        .isEqualTo("data:application/pdf;base64,Aw==");
  }

  @Test
  void toolCalls_argumentsInThreeFragments_areJoinedByIndex() {
    server.reply(FakeChatCompletionsServer.stream(Wire.TOOL_CALLS));
    RecordingModelStream stream = new RecordingModelStream();

    ModelResponse response = provider().generate(hello(), stream);

    assertThat(stream.events).containsExactly("text:Let me add.");
    assertThat(response.text()).isEqualTo("Let me add.");
    assertThat(response.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    assertThat(response.toolCalls())
        .containsExactly(
            new ToolCall("call_Add1", "add", json("{\"a\":1,\"b\":2}")),
            new ToolCall("call_Echo2", "echo", json("{\"text\":\"x\"}")));
    assertThat(response.usage()).isEqualTo(new Usage(120, 40));
  }

  @Test
  void rateLimited_429WithRetryAfter1_isTransientWithRetryAfterOneSecond_thenTheCallSucceeds() {
    server.reply(
        FakeChatCompletionsServer.status(
            429,
            Map.of("Content-Type", "application/json", "Retry-After", "1"),
            "{\"error\":{\"message\":\"Rate limit reached for gpt-4o-mini\",\"type\":\"requests\","
                + "\"param\":null,\"code\":\"rate_limit_exceeded\"}}"),
        FakeChatCompletionsServer.stream(Wire.PLAIN_ANSWER));
    OpenAiModelProvider provider = provider();

    ModelException failure =
        modelFailure(() -> provider.generate(hello(), new RecordingModelStream()));

    assertThat(failure.retryable()).isTrue();
    assertThat(failure.retryAfter()).isEqualTo(Duration.ofSeconds(1));
    assertThat(failure.code()).isEqualTo("model_rate_limited");
    assertThat(failure.getMessage()).contains("Rate limit reached for gpt-4o-mini");
    assertThat(provider.generate(hello(), new RecordingModelStream()).text())
        .isEqualTo("Hello there!");
  }

  @Test
  void serverErrors_areTransient_andHonourARetryAfterDate() {
    Instant inTenSeconds = Instant.now().plusSeconds(10);
    server.reply(
        FakeChatCompletionsServer.status(
            503,
            Map.of(
                "Retry-After",
                DateTimeFormatter.RFC_1123_DATE_TIME.format(inTenSeconds.atOffset(ZoneOffset.UTC))),
            "upstream overloaded"));

    ModelException failure =
        modelFailure(() -> provider().generate(hello(), new RecordingModelStream()));

    assertThat(failure.retryable()).isTrue();
    assertThat(failure.code()).isEqualTo("model_unavailable");
    assertThat(failure.getMessage()).contains("HTTP 503", "upstream overloaded");
    assertThat(failure.retryAfter()).isBetween(Duration.ofSeconds(7), Duration.ofSeconds(10));
  }

  @Test
  void badRequest_400_isPermanentModelRequestInvalid_withTheServersMessage() {
    server.reply(
        FakeChatCompletionsServer.status(
            400,
            Map.of("Content-Type", "application/json"),
            "{\"error\":{\"message\":\"Invalid schema for function 'add': 'objekt' is not valid under any of the given schemas.\","
                + "\"type\":\"invalid_request_error\",\"param\":\"tools[0].function.parameters\",\"code\":\"invalid_function_parameters\"}}"));

    ModelException failure =
        modelFailure(() -> provider().generate(hello(), new RecordingModelStream()));

    assertThat(failure.retryable()).isFalse();
    assertThat(failure.code()).isEqualTo("model_request_invalid");
    assertThat(failure.getMessage())
        .contains("HTTP 400", "Invalid schema for function 'add'", "invalid_request_error");
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void aRequestOverTheModelsContextWindow_isContextExceeded_notRetried() {
    server.contextWindow(500).reply(FakeChatCompletionsServer.stream(Wire.PLAIN_ANSWER));
    RecordingModelStream within = new RecordingModelStream();
    assertThat(provider().generate(hello(), within).text()).isNotEmpty();

    ModelRequest longer =
        request(List.of(Message.user("a long document. ".repeat(200))), List.of());
    ModelException failure =
        modelFailure(() -> provider().generate(longer, new RecordingModelStream()));

    assertThat(failure.code()).isEqualTo("context_exceeded");
    assertThat(failure.retryable()).isFalse();
    assertThat(failure.getMessage())
        .contains("HTTP 400", "maximum context length is 500 tokens", "context_length_exceeded");
    assertThat(server.requests()).hasSize(2);
  }

  @Test
  void streamCutBeforeTheFinishPart_isIncompleteResponse_neverAPartialAnswer() {
    server.reply(FakeChatCompletionsServer.stream(Wire.CUT_AFTER_TOOL_CALL));
    RecordingModelStream stream = new RecordingModelStream();

    ModelException failure = modelFailure(() -> provider().generate(hello(), stream));

    assertThat(failure.code()).isEqualTo("incomplete_response");
    assertThat(failure.retryable()).isFalse();
    assertThat(stream.events).containsExactly("text:Adding");
  }

  @Test
  void doneWithoutAFinishReason_isIncompleteResponseToo() {
    server.reply(
        FakeChatCompletionsServer.stream(
            Wire.chunk("{\"role\":\"assistant\",\"content\":\"Half an ans\"}", null)
                + "data: [DONE]\n\n"));

    assertThatThrownBy(() -> provider().generate(hello(), new RecordingModelStream()))
        .isInstanceOfSatisfying(
            ModelException.class, e -> assertThat(e.code()).isEqualTo("incomplete_response"));
  }

  @Test
  void streamCutInsideAChunk_isIncompleteResponse() {
    String wire = Wire.answer("Hello", " there");
    String cut = wire.substring(0, wire.indexOf("\"finish_reason\":\"stop\"") - 10);
    server.reply(FakeChatCompletionsServer.stream(cut));

    assertThatThrownBy(() -> provider().generate(hello(), new RecordingModelStream()))
        .isInstanceOfSatisfying(
            ModelException.class, e -> assertThat(e.code()).isEqualTo("incomplete_response"));
  }

  @Test
  void requestBody_isTheDocumentedStreamingChatCompletionsRequest() throws IOException {
    server.reply(FakeChatCompletionsServer.stream(Wire.PLAIN_ANSWER));
    ToolCall add = new ToolCall("call_Add1", "add", json("{\"a\":1,\"b\":2}"));
    ToolCall broken =
        new ToolCall(
            "call_Bad2", "add", com.fasterxml.jackson.databind.node.TextNode.valueOf("{\"a\":"));
    List<Message> messages =
        List.of(
            Message.user("What is 1+2?"),
            Message.assistant("Let me add.", List.of(add, broken)),
            Message.toolResult(add, json("{\"sum\":3}")),
            Message.toolResult(
                broken, json("{\"error\":\"invalid_arguments\",\"message\":\"not JSON\"}")),
            Message.assistant("It is 3.", List.of()),
            Message.user("Thanks"));
    ToolDefinition tool =
        new ToolDefinition(
            "add",
            "Adds two integers.",
            json(
                "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}"));

    provider().generate(request(messages, List.of(tool)), new RecordingModelStream());

    FakeChatCompletionsServer.Recorded sent = server.requests().get(0);
    assertThat(sent.method()).isEqualTo("POST");
    assertThat(sent.path()).isEqualTo("/v1/chat/completions");
    assertThat(sent.header("Authorization")).isEqualTo("Bearer sk-test-key");
    assertThat(sent.header("Content-Type")).isEqualTo("application/json");
    assertThat(sent.header("Accept")).isEqualTo("text/event-stream");
    JsonNode expected =
        json(
            """
            {"model": "gpt-4o-mini",
             "stream": true,
             "stream_options": {"include_usage": true},
             "messages": [
               {"role": "system", "content": "Be brief."},
               {"role": "user", "content": "What is 1+2?"},
               {"role": "assistant", "content": "Let me add.", "tool_calls": [
                 {"id": "call_Add1", "type": "function", "function": {"name": "add", "arguments": "{\\"a\\":1,\\"b\\":2}"}},
                 {"id": "call_Bad2", "type": "function", "function": {"name": "add", "arguments": "{\\"a\\":"}}]},
               {"role": "tool", "tool_call_id": "call_Add1", "content": "{\\"sum\\":3}"},
               {"role": "tool", "tool_call_id": "call_Bad2", "content": "{\\"error\\":\\"invalid_arguments\\",\\"message\\":\\"not JSON\\"}"},
               {"role": "assistant", "content": "It is 3."},
               {"role": "user", "content": "Thanks"}],
             "tools": [
               {"type": "function", "function": {"name": "add", "description": "Adds two integers.",
                 "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                                "required": ["a", "b"]}}}]}
            """);
    assertThat(sent.json()).isEqualTo(expected);
  }

  @Test
  void assistantTurnWithOnlyToolCalls_sendsNullContent_andNoToolsMeansNoToolsField() {
    server.reply(FakeChatCompletionsServer.stream(Wire.PLAIN_ANSWER));
    ToolCall call = new ToolCall("call_1", "echo", json("{\"text\":\"x\"}"));
    ModelRequest request =
        ModelRequest.newBuilder()
            .setSessionId("s-1")
            .setAgent("tester")
            .setModel("agent-model")
            .setInstructions("")
            .setMessages(
                List.of(
                    Message.user("hi"),
                    Message.assistant("", List.of(call)),
                    Message.toolResult(call, json("\"x\""))))
            .setTools(List.of())
            .setStep(1)
            .build();

    provider().generate(request, new RecordingModelStream());

    JsonNode body = server.requests().get(0).json();
    assertThat(body.has("tools")).isFalse();
    assertThat(body.path("messages").get(0).path("role").asText()).isEqualTo("user");
    assertThat(body.path("messages").get(1).get("content").isNull()).isTrue();
    assertThat(body.path("messages").get(2).path("content").asText()).isEqualTo("\"x\"");
  }

  @Test
  void withoutAModelName_theAgentsModelIsSent() {
    server.reply(FakeChatCompletionsServer.stream(Wire.PLAIN_ANSWER));

    OpenAiModelProvider.newBuilder()
        .setBaseUrl(server.baseUrl())
        .build()
        .generate(hello(), new RecordingModelStream());

    assertThat(server.requests().get(0).json().path("model").asText()).isEqualTo("agent-model");
    assertThat(server.requests().get(0).header("Authorization")).isNull();
  }

  @Test
  void unparsableArguments_areKeptAsTheModelsRawText() {
    server.reply(
        FakeChatCompletionsServer.stream(
            Wire.chunk(
                    "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"index\":0,\"id\":\"call_X\","
                        + "\"type\":\"function\",\"function\":{\"name\":\"add\",\"arguments\":\"{\\\"a\\\": 1,\"}}]}",
                    null)
                + Wire.chunk("{}", "tool_calls")
                + "data: [DONE]\n\n"));

    ModelResponse response = provider().generate(hello(), new RecordingModelStream());

    assertThat(response.toolCalls()).hasSize(1);
    assertThat(response.toolCalls().get(0).arguments().isTextual()).isTrue();
    assertThat(response.toolCalls().get(0).arguments().textValue()).isEqualTo("{\"a\": 1,");
    assertThat(response.text()).isEmpty();
  }

  /** A plain "Hi" answer whose usage chunk carries {@code usage}. */
  private static String answerWithUsage(String usage) {
    return Wire.chunk("{\"role\":\"assistant\",\"content\":\"Hi\"}", "stop")
        + "data: {\"id\":\"chatcmpl-U\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":"
        + usage
        + "}\n\n"
        + "data: [DONE]\n\n";
  }

  @Test
  void negativeNonNumericOrOverflowingUsage_isAPermanentModelResponseInvalid_namingTheField() {
    for (String usage :
        List.of(
            "{\"prompt_tokens\":-5,\"completion_tokens\":3}",
            "{\"prompt_tokens\":\"12\",\"completion_tokens\":3}",
            "{\"prompt_tokens\":10,\"completion_tokens\":1.5}",
            "{\"prompt_tokens\":99999999999999999999999,\"completion_tokens\":3}")) {
      server.reply(FakeChatCompletionsServer.stream(answerWithUsage(usage)));

      ModelException failure =
          modelFailure(() -> provider().generate(hello(), new RecordingModelStream()));

      assertThat(failure.code()).as(usage).isEqualTo(FailureTypes.MODEL_RESPONSE_INVALID);
      assertThat(failure.retryable()).as(usage).isFalse();
      assertThat(failure.getMessage())
          .as(usage)
          .containsPattern("usage\\.(prompt|completion)_tokens");
    }
    server.reply(FakeChatCompletionsServer.stream(answerWithUsage("{\"prompt_tokens\":null}")));
    assertThat(provider().generate(hello(), new RecordingModelStream()).usage())
        .isEqualTo(Usage.ZERO);
  }

  @Test
  void aToolCallWithoutAName_isAPermanentModelResponseInvalid() {
    server.reply(
        FakeChatCompletionsServer.stream(
            Wire.chunk(
                    "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"index\":0,\"id\":\"call_N\","
                        + "\"type\":\"function\",\"function\":{\"arguments\":\"{}\"}}]}",
                    null)
                + Wire.chunk("{}", "tool_calls")
                + "data: [DONE]\n\n"));

    ModelException failure =
        modelFailure(() -> provider().generate(hello(), new RecordingModelStream()));

    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_RESPONSE_INVALID);
    assertThat(failure.retryable()).isFalse();
    assertThat(failure.getMessage()).contains("tool call 0 (id call_N) without a function name");
  }

  @Test
  void reasoningDeltas_goToTheStreamBeforeTheText_andAreNotPartOfIt() {
    server.reply(
        FakeChatCompletionsServer.stream(
            Wire.chunk(
                    "{\"role\":\"assistant\",\"content\":null,\"reasoning_content\":\"Think\"}",
                    null)
                + Wire.chunk("{\"reasoning\":\"ing...\"}", null)
                + Wire.chunk("{\"content\":\"Done.\"}", null)
                + Wire.chunk("{}", "length")
                + "data: [DONE]\n\n"));
    RecordingModelStream stream = new RecordingModelStream();

    ModelResponse response = provider().generate(hello(), stream);

    assertThat(stream.events).containsExactly("reasoning:Think", "reasoning:ing...", "text:Done.");
    assertThat(response.text()).isEqualTo("Done.");
    assertThat(response.finishReason()).isEqualTo(FinishReason.LENGTH);
    assertThat(response.usage()).isEqualTo(Usage.ZERO);
  }

  @Test
  void anErrorChunkMidStream_isTransient() {
    server.reply(
        FakeChatCompletionsServer.stream(
            Wire.chunk("{\"role\":\"assistant\",\"content\":\"Hel\"}", null)
                + "data: {\"error\":{\"message\":\"The server had an error while processing your request.\",\"type\":\"server_error\"}}\n\n"));

    ModelException failure =
        modelFailure(() -> provider().generate(hello(), new RecordingModelStream()));

    assertThat(failure.retryable()).isTrue();
    assertThat(failure.getMessage()).contains("The server had an error");
  }

  @Test
  void aFailureAfterStreamedText_carriesThatText_forTheFailedStep() {
    server.reply(
        FakeChatCompletionsServer.stream(
            Wire.chunk("{\"role\":\"assistant\",\"content\":\"Half \"}", null)
                + Wire.chunk("{\"content\":\"an ans\"}", null)
                + "data: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}\n\n"));

    ModelException midStream =
        modelFailure(() -> provider().generate(hello(), new RecordingModelStream()));

    assertThat(midStream.retryable()).isTrue();
    assertThat(midStream.partialText()).isEqualTo("Half an ans");

    server.reply(
        FakeChatCompletionsServer.stream(
            Wire.chunk("{\"role\":\"assistant\",\"content\":\"Cut off he\"}", null)));

    ModelException cut =
        modelFailure(() -> provider().generate(hello(), new RecordingModelStream()));

    assertThat(cut.code()).isEqualTo("incomplete_response");
    assertThat(cut.partialText()).isEqualTo("Cut off he");
  }

  @Test
  void aFailureBeforeAnyText_carriesNoPartialText() {
    server.reply(FakeChatCompletionsServer.status(500, java.util.Map.of(), "{}"));

    ModelException failure =
        modelFailure(() -> provider().generate(hello(), new RecordingModelStream()));

    assertThat(failure.partialText()).isNull();
  }

  @Test
  void connectionRefused_isTransient() throws IOException {
    int port;
    try (ServerSocket socket =
        new ServerSocket(0, 1, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}))) {
      port = socket.getLocalPort();
    }
    OpenAiModelProvider provider =
        OpenAiModelProvider.newBuilder()
            .setBaseUrl("http://127.0.0.1:" + port + "/v1")
            .setModel("m")
            .build();

    ModelException failure =
        modelFailure(() -> provider.generate(hello(), new RecordingModelStream()));

    assertThat(failure.retryable()).isTrue();
    assertThat(failure.code()).isEqualTo("model_connection_failed");
  }

  @Test
  void aSilentServer_isATransientTimeout_andTheWaitHeartbeats() {
    server.reply(
        FakeChatCompletionsServer.delayed(
            3000, FakeChatCompletionsServer.stream(Wire.PLAIN_ANSWER)));
    OpenAiModelProvider provider =
        OpenAiModelProvider.newBuilder()
            .setBaseUrl(server.baseUrl())
            .setModel("m")
            .setIdleTimeout(Duration.ofMillis(800))
            .build();
    RecordingModelStream stream = new RecordingModelStream();

    ModelException failure = modelFailure(() -> provider.generate(hello(), stream));

    assertThat(failure.retryable()).isTrue();
    assertThat(failure.code()).isEqualTo("model_timeout");
    assertThat(stream.alive).isPositive();
  }

  @Test
  void aStreamThatThrows_stopsTheCall_andTheServerSeesTheConnectionClose() throws Exception {
    CountDownLatch hungUp = new CountDownLatch(1);
    server.reply(FakeChatCompletionsServer.endless("one", 50, hungUp));
    RuntimeException cancelled = new IllegalStateException("activity cancelled");
    RecordingModelStream stream =
        new RecordingModelStream() {
          @Override
          public void text(String delta) {
            super.text(delta);
            throw cancelled;
          }
        };

    long start = System.nanoTime();
    assertThatThrownBy(() -> provider().generate(hello(), stream)).isSameAs(cancelled);

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(stream.events).containsExactly("text:one");
    assertThat(hungUp.await(10, TimeUnit.SECONDS))
        .as("the server noticed the client hung up")
        .isTrue();
  }

  @Test
  void cancelledWhileStreaming_noDeltaReachesAListenerAfterTheCancel_andTheCallStops()
      throws Exception {
    CountDownLatch hungUp = new CountDownLatch(1);
    server.reply(FakeChatCompletionsServer.endless("one", 20, hungUp));
    List<Delta> received = new CopyOnWriteArrayList<>();
    AtomicBoolean cancelRequested = new AtomicBoolean();
    ActivityCanceledException cancel = new ActivityCanceledException();
    DeltaForwardingStream stream =
        new DeltaForwardingStream(
            "s-1",
            1,
            1,
            List.of(
                delta -> {
                  received.add(delta);
                  if (received.size() == 3) {
                    cancelRequested.set(
                        true); // the server answers the next heartbeat with a cancel
                  }
                }),
            () -> {
              if (cancelRequested.get()) {
                throw cancel;
              }
            });

    assertThatThrownBy(() -> provider().generate(hello(), stream)).isSameAs(cancel);

    assertThat(received).extracting(Delta::text).containsExactly("one", " more", " more");
    assertThat(hungUp.await(10, TimeUnit.SECONDS)).as("the HTTP call was abandoned").isTrue();
    // The stream forwards on the calling thread, which has returned, and the server has seen the
    // connection close: nothing can reach the listener any more.
    assertThat(received).hasSize(3);
  }

  @Test
  void fromSpec_openai_usesTheEnvironment() {
    ModelProvider provider =
        ModelProviders.fromSpec(
            "openai:gpt-4o-mini",
            Map.of("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/", "OPENAI_API_KEY", "sk-secret"));

    assertThat(provider).isInstanceOf(OpenAiModelProvider.class);
    OpenAiModelProvider openai = (OpenAiModelProvider) provider;
    assertThat(openai.endpoint().toString()).isEqualTo("http://127.0.0.1:9/v1/chat/completions");
    assertThat(openai.model()).isEqualTo("gpt-4o-mini");
    assertThat(openai.toString()).doesNotContain("sk-secret");
  }

  @Test
  void fromSpec_openai_refusesWhatCannotWork() {
    assertThatThrownBy(() -> ModelProviders.fromSpec("openai:gpt-4o-mini", Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("OPENAI_API_KEY");
    assertThatThrownBy(() -> ModelProviders.fromSpec("openai:", Map.of("OPENAI_API_KEY", "k")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("openai:MODEL");
    assertThatThrownBy(
            () -> ModelProviders.fromSpec("openai:m", Map.of("OPENAI_BASE_URL", "ftp://x/v1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("http or https");
    assertThatThrownBy(() -> ModelProviders.fromSpec("claude:x", Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("scripted:PATH", "openai:MODEL");
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
