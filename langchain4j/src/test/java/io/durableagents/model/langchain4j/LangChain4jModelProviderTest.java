package io.durableagents.model.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import io.durableagents.conversation.Attachment;
import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import io.durableagents.model.AttachmentContent;
import io.durableagents.model.ModelException;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ModelResponse;
import io.durableagents.model.ToolDefinition;
import io.durableagents.model.openai.FakeChatCompletionsServer;
import io.durableagents.model.openai.Wire;
import io.durableagents.testing.RecordingModelStream;
import io.durableagents.workflow.FailureTypes;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The provider around LangChain4j's own OpenAI models (streaming and blocking, retries off), which
 * talk to a local fake Chat Completions server: what reaches the stream, the answer, the failures,
 * the cancels and the request LangChain4j sends.
 */
class LangChain4jModelProviderTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final FakeChatCompletionsServer server = new FakeChatCompletionsServer();

  @AfterEach
  void close() {
    server.close();
  }

  private OpenAiStreamingChatModel.OpenAiStreamingChatModelBuilder streamingModel() {
    return OpenAiStreamingChatModel.builder()
        .baseUrl(server.baseUrl())
        .apiKey("sk-test-key")
        .modelName("gpt-4o-mini");
  }

  private LangChain4jModelProvider streaming() {
    return LangChain4jModelProvider.newBuilder(streamingModel().build()).build();
  }

  private LangChain4jModelProvider blocking() {
    return LangChain4jModelProvider.newBuilder(
            OpenAiChatModel.builder()
                .baseUrl(server.baseUrl())
                .apiKey("sk-test-key")
                .modelName("gpt-4o-mini")
                .maxRetries(0)
                .build())
        .build();
  }

  static ModelRequest request(List<Message> messages, List<ToolDefinition> tools) {
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
  void streamedText_eachDeltaGoesToTheStreamInOrder_andTheAnswerHasTextStopAndUsage() {
    server.reply(FakeChatCompletionsServer.stream(Wire.PLAIN_ANSWER));
    RecordingModelStream stream = new RecordingModelStream();

    ModelResponse response = streaming().generate(hello(), stream);

    assertThat(stream.events).containsExactly("text:Hello", "text: there", "text:!");
    assertThat(response.text()).isEqualTo("Hello there!");
    assertThat(response.toolCalls()).isEmpty();
    assertThat(response.finishReason()).isEqualTo(FinishReason.STOP);
    assertThat(response.usage()).isEqualTo(new Usage(19, 3));
  }

  @Test
  void streamedToolCalls_argumentsSplitAcrossChunks_areWholeJsonObjects() {
    server.reply(FakeChatCompletionsServer.stream(Wire.TOOL_CALLS));
    RecordingModelStream stream = new RecordingModelStream();

    ModelResponse response = streaming().generate(hello(), stream);

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
  void finishReasons_lengthContentFilterAndStop_mapToOurs() {
    Map<String, String> expected =
        Map.of("length", FinishReason.LENGTH, "content_filter", "content-filter", "stop", "stop");
    for (var entry : expected.entrySet()) {
      server.reply(
          FakeChatCompletionsServer.stream(
              Wire.chunk("{\"role\":\"assistant\",\"content\":\"Par\"}", null)
                  + Wire.chunk("{}", entry.getKey())
                  + "data: [DONE]\n\n"));

      ModelResponse response = streaming().generate(hello(), new RecordingModelStream());

      assertThat(response.finishReason()).as(entry.getKey()).isEqualTo(entry.getValue());
      assertThat(response.text()).isEqualTo("Par");
    }
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

    ModelResponse response = streaming().generate(hello(), new RecordingModelStream());

    assertThat(response.toolCalls()).hasSize(1);
    assertThat(response.toolCalls().get(0).arguments()).isEqualTo(TextNode.valueOf("{\"a\": 1,"));
    assertThat(response.problems()).isEmpty();
  }

  @Test
  void reasoningDeltas_goToTheStreamAsReasoning_whenTheModelReturnsThinking() {
    server.reply(
        FakeChatCompletionsServer.stream(
            Wire.chunk(
                    "{\"role\":\"assistant\",\"content\":null,\"reasoning_content\":\"Think\"}",
                    null)
                + Wire.chunk("{\"reasoning_content\":\"ing...\"}", null)
                + Wire.chunk("{\"content\":\"Done.\"}", null)
                + Wire.chunk("{}", "stop")
                + "data: [DONE]\n\n"));
    RecordingModelStream stream = new RecordingModelStream();
    LangChain4jModelProvider provider =
        LangChain4jModelProvider.newBuilder(streamingModel().returnThinking(true).build()).build();

    ModelResponse response = provider.generate(hello(), stream);

    assertThat(stream.events).containsExactly("reasoning:Think", "reasoning:ing...", "text:Done.");
    assertThat(response.text()).isEqualTo("Done.");
  }

  @Test
  void rateLimited_429_isTransientModelRateLimited_withTheServersMessage_thenTheCallSucceeds() {
    server.reply(
        FakeChatCompletionsServer.status(
            429,
            Map.of("Content-Type", "application/json", "Retry-After", "7"),
            "{\"error\":{\"message\":\"Rate limit reached for gpt-4o-mini\",\"type\":\"requests\","
                + "\"param\":null,\"code\":\"rate_limit_exceeded\"}}"),
        FakeChatCompletionsServer.stream(Wire.PLAIN_ANSWER));
    LangChain4jModelProvider provider = streaming();

    ModelException failure =
        modelFailure(() -> provider.generate(hello(), new RecordingModelStream()));

    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_RATE_LIMITED);
    assertThat(failure.retryable()).isTrue();
    assertThat(failure.getMessage())
        .contains("HTTP 429", "Rate limit reached for gpt-4o-mini", "rate_limit_exceeded");
    // LangChain4j's exceptions carry no headers: the activity's backoff applies (documented).
    assertThat(failure.retryAfter()).isNull();
    assertThat(provider.generate(hello(), new RecordingModelStream()).text())
        .isEqualTo("Hello there!");
  }

  @Test
  void serverError_500_isTransientModelUnavailable() {
    server.reply(
        FakeChatCompletionsServer.status(
            500,
            Map.of("Content-Type", "application/json"),
            "{\"error\":{\"message\":\"The server had an error while processing your request.\","
                + "\"type\":\"server_error\"}}"));

    ModelException failure =
        modelFailure(() -> streaming().generate(hello(), new RecordingModelStream()));

    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_UNAVAILABLE);
    assertThat(failure.retryable()).isTrue();
    assertThat(failure.getMessage()).contains("HTTP 500", "The server had an error");
    assertThat(failure.partialText()).isNull();
  }

  @Test
  void badRequest_400_isPermanentModelRequestInvalid_withTheServersMessage() {
    server.reply(
        FakeChatCompletionsServer.status(
            400,
            Map.of("Content-Type", "application/json"),
            "{\"error\":{\"message\":\"Invalid value for 'messages[1].role'.\","
                + "\"type\":\"invalid_request_error\",\"param\":\"messages\","
                + "\"code\":\"invalid_value\"}}"));

    ModelException failure =
        modelFailure(() -> streaming().generate(hello(), new RecordingModelStream()));

    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_REQUEST_INVALID);
    assertThat(failure.retryable()).isFalse();
    assertThat(failure.getMessage())
        .contains(
            "HTTP 400",
            "Invalid value for 'messages[1].role'",
            "invalid_request_error",
            "invalid_value");
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void aRequestOverTheModelsContextWindow_isContextExceeded_notRetried() {
    server.contextWindow(500);
    ModelRequest longer =
        request(List.of(Message.user("a long document. ".repeat(200))), List.of());

    ModelException failure =
        modelFailure(() -> streaming().generate(longer, new RecordingModelStream()));

    assertThat(failure.code()).isEqualTo(FailureTypes.CONTEXT_EXCEEDED);
    assertThat(failure.retryable()).isFalse();
    assertThat(failure.getMessage())
        .contains("HTTP 400", "maximum context length is 500 tokens", "context_length_exceeded");
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void streamCutBeforeTheFinishPart_isIncompleteResponse_keepingOnlyTheStreamedText() {
    server.reply(FakeChatCompletionsServer.stream(Wire.CUT_AFTER_TOOL_CALL));
    RecordingModelStream stream = new RecordingModelStream();

    ModelException failure = modelFailure(() -> streaming().generate(hello(), stream));

    assertThat(failure.code()).isEqualTo(FailureTypes.INCOMPLETE_RESPONSE);
    assertThat(failure.retryable()).isFalse();
    assertThat(failure.partialText()).isEqualTo("Adding");
    assertThat(stream.events).containsExactly("text:Adding");
  }

  @Test
  void anErrorEventMidStream_isClassifiedByItsType() {
    server.reply(
        FakeChatCompletionsServer.stream(
            Wire.chunk("{\"role\":\"assistant\",\"content\":\"Half an ans\"}", null)
                + "event: error\n"
                + "data: {\"error\":{\"message\":\"The engine is overloaded.\",\"type\":\"server_error\"}}\n\n"),
        FakeChatCompletionsServer.stream(
            Wire.chunk("{\"role\":\"assistant\",\"content\":\"Hm\"}", null)
                + "event: error\n"
                + "data: {\"error\":{\"message\":\"Invalid 'messages[1]'.\",\"type\":\"invalid_request_error\"}}\n\n"));

    ModelException overloaded =
        modelFailure(() -> streaming().generate(hello(), new RecordingModelStream()));

    assertThat(overloaded.code()).isEqualTo(FailureTypes.MODEL_UNAVAILABLE);
    assertThat(overloaded.retryable()).isTrue();
    assertThat(overloaded.getMessage()).contains("The engine is overloaded.", "server_error");
    assertThat(overloaded.partialText()).isEqualTo("Half an ans");

    ModelException invalid =
        modelFailure(() -> streaming().generate(hello(), new RecordingModelStream()));

    assertThat(invalid.code()).isEqualTo(FailureTypes.MODEL_REQUEST_INVALID);
    assertThat(invalid.retryable()).isFalse();
    assertThat(invalid.getMessage()).contains("Invalid 'messages[1]'.");
  }

  @Test
  void aMalformedChunk_isAPermanentModelResponseInvalid_namingWhatWasWrong() {
    server.reply(
        FakeChatCompletionsServer.stream(
            Wire.chunk("{\"role\":\"assistant\",\"content\":\"Hel\"}", null)
                + "data: {\"id\":\"chatcmpl-G\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}\n\n"
                + Wire.chunk("{}", "stop")
                + "data: [DONE]\n\n"));

    ModelException failure =
        modelFailure(() -> streaming().generate(hello(), new RecordingModelStream()));

    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_RESPONSE_INVALID);
    assertThat(failure.retryable()).isFalse();
    assertThat(failure.getMessage()).contains("not valid JSON");
  }

  @Test
  void connectionRefused_isTransientModelUnavailable() throws IOException {
    int port;
    try (ServerSocket socket =
        new ServerSocket(0, 1, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}))) {
      port = socket.getLocalPort();
    }
    LangChain4jModelProvider provider =
        LangChain4jModelProvider.newBuilder(
                OpenAiStreamingChatModel.builder()
                    .baseUrl("http://127.0.0.1:" + port + "/v1")
                    .apiKey("k")
                    .modelName("m")
                    .build())
            .build();

    ModelException failure =
        modelFailure(() -> provider.generate(hello(), new RecordingModelStream()));

    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_UNAVAILABLE);
    assertThat(failure.retryable()).isTrue();
  }

  @Test
  void aStreamThatThrowsOnText_stopsTheCallPromptly_andTheServerSeesTheConnectionClose()
      throws Exception {
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
    assertThatThrownBy(() -> streaming().generate(hello(), stream)).isSameAs(cancelled);

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(stream.events).containsExactly("text:one");
    assertThat(hungUp.await(10, TimeUnit.SECONDS))
        .as("the server noticed the client hung up")
        .isTrue();
  }

  @Test
  void aCancelBeforeTheFirstByte_stopsTheCall_andTheStreamIsCancelledWhenItStarts()
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch hungUp = new CountDownLatch(1);
    server.reply(
        FakeChatCompletionsServer.held(
            release, FakeChatCompletionsServer.endless("one", 50, hungUp)));
    RuntimeException cancelled = new IllegalStateException("activity cancelled");
    RecordingModelStream stream =
        new RecordingModelStream() {
          @Override
          public void alive() {
            super.alive();
            throw cancelled;
          }
        };

    assertThatThrownBy(() -> streaming().generate(hello(), stream)).isSameAs(cancelled);
    release.countDown();

    assertThat(stream.events).isEmpty();
    assertThat(hungUp.await(10, TimeUnit.SECONDS))
        .as("the stream was cancelled at its first event")
        .isTrue();
  }

  @Test
  void aSilentModel_isATransientTimeout_andTheWaitHeartbeats() {
    CountDownLatch release = new CountDownLatch(1);
    server.reply(
        FakeChatCompletionsServer.held(
            release, FakeChatCompletionsServer.stream(Wire.PLAIN_ANSWER)));
    LangChain4jModelProvider provider =
        LangChain4jModelProvider.newBuilder(streamingModel().build())
            .setIdleTimeout(Duration.ofMillis(1500))
            .build();
    RecordingModelStream stream = new RecordingModelStream();

    ModelException failure = modelFailure(() -> provider.generate(hello(), stream));
    release.countDown();

    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_TIMEOUT);
    assertThat(failure.retryable()).isTrue();
    assertThat(stream.alive).isPositive();
  }

  @Test
  void blockingModel_theWholeAnswerGoesToTheStreamOnce_withToolCallsUsageAndFinishReason() {
    server.reply(
        FakeChatCompletionsServer.completion(
            """
            {"id": "chatcmpl-C1", "object": "chat.completion", "created": 1735689600,
             "model": "gpt-4o-mini-2024-07-18",
             "choices": [{"index": 0, "message": {"role": "assistant", "content": "Checking.",
               "tool_calls": [{"id": "call_W1", "type": "function",
                 "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Paris\\"}"}}]},
               "logprobs": null, "finish_reason": "tool_calls"}],
             "usage": {"prompt_tokens": 31, "completion_tokens": 9, "total_tokens": 40}}
            """));
    RecordingModelStream stream = new RecordingModelStream();

    ModelResponse response = blocking().generate(hello(), stream);

    assertThat(stream.events).containsExactly("text:Checking.");
    assertThat(response.text()).isEqualTo("Checking.");
    assertThat(response.toolCalls())
        .containsExactly(new ToolCall("call_W1", "get_weather", json("{\"city\":\"Paris\"}")));
    assertThat(response.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    assertThat(response.usage()).isEqualTo(new Usage(31, 9));
    assertThat(server.requests().get(0).json().path("stream").asBoolean(false)).isFalse();
  }

  @Test
  void blockingModel_429_isRateLimited_withoutARetryOfItsOwn() {
    server.reply(
        FakeChatCompletionsServer.status(
            429,
            Map.of("Content-Type", "application/json", "Retry-After", "3"),
            "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\"}}"));

    ModelException failure =
        modelFailure(() -> blocking().generate(hello(), new RecordingModelStream()));

    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_RATE_LIMITED);
    assertThat(failure.retryable()).isTrue();
    assertThat(failure.getMessage()).contains("Rate limit reached");
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void blockingModel_heartbeatsWhileItWaits_andACancelAbandonsTheCallPromptly() {
    CountDownLatch release = new CountDownLatch(1);
    server.reply(
        FakeChatCompletionsServer.held(
            release, FakeChatCompletionsServer.completion("{\"choices\": []}")));
    RuntimeException cancelled = new IllegalStateException("activity cancelled");
    RecordingModelStream stream =
        new RecordingModelStream() {
          @Override
          public void alive() {
            super.alive();
            if (alive == 2) {
              throw cancelled;
            }
          }
        };

    long start = System.nanoTime();
    try {
      assertThatThrownBy(() -> blocking().generate(hello(), stream)).isSameAs(cancelled);
    } finally {
      release.countDown();
    }

    assertThat(stream.alive).isEqualTo(2);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void theRequest_isTheConversationAndTheToolsAsLangChain4jSendsThem() {
    server.reply(FakeChatCompletionsServer.stream(Wire.PLAIN_ANSWER));
    ToolCall add = new ToolCall("call_Add1", "add", json("{\"a\":1,\"b\":2}"));
    ToolCall broken = new ToolCall("call_Bad2", "add", TextNode.valueOf("{\"a\":"));
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
                """
                {"type": "object",
                 "properties": {
                   "a": {"type": "integer", "description": "first"},
                   "b": {"type": "integer"},
                   "mode": {"type": "string", "enum": ["exact", "rounded"]},
                   "tags": {"type": "array", "items": {"type": "string"}},
                   "options": {"type": "object",
                               "properties": {"precision": {"type": "integer", "minimum": 0}},
                               "required": ["precision"]}},
                 "required": ["a", "b"]}
                """));

    streaming().generate(request(messages, List.of(tool)), new RecordingModelStream());

    FakeChatCompletionsServer.Recorded sent = server.requests().get(0);
    assertThat(sent.path()).isEqualTo("/v1/chat/completions");
    assertThat(sent.header("Authorization")).isEqualTo("Bearer sk-test-key");
    JsonNode body = sent.json();
    assertThat(body.path("model").asText())
        .as("the model's own name, not the agent's")
        .isEqualTo("gpt-4o-mini");
    assertThat(body.path("stream").asBoolean()).isTrue();
    JsonNode sentMessages = body.path("messages");
    assertThat(sentMessages).hasSize(7);
    assertThat(sentMessages.get(0))
        .isEqualTo(json("{\"role\": \"system\", \"content\": \"Be brief.\"}"));
    assertThat(sentMessages.get(1))
        .isEqualTo(json("{\"role\": \"user\", \"content\": \"What is 1+2?\"}"));
    JsonNode assistant = sentMessages.get(2);
    assertThat(assistant.path("role").asText()).isEqualTo("assistant");
    assertThat(assistant.path("content").asText()).isEqualTo("Let me add.");
    assertThat(assistant.path("tool_calls"))
        .isEqualTo(
            json(
                """
                [{"id": "call_Add1", "type": "function",
                  "function": {"name": "add", "arguments": "{\\"a\\":1,\\"b\\":2}"}},
                 {"id": "call_Bad2", "type": "function",
                  "function": {"name": "add", "arguments": "{\\"a\\":"}}]
                """));
    assertThat(sentMessages.get(3))
        .isEqualTo(
            json(
                "{\"role\": \"tool\", \"tool_call_id\": \"call_Add1\", \"content\": \"{\\\"sum\\\":3}\"}"));
    assertThat(sentMessages.get(4).path("tool_call_id").asText()).isEqualTo("call_Bad2");
    assertThat(sentMessages.get(4).path("content").asText()).contains("invalid_arguments");
    assertThat(sentMessages.get(5))
        .isEqualTo(json("{\"role\": \"assistant\", \"content\": \"It is 3.\"}"));
    assertThat(sentMessages.get(6))
        .isEqualTo(json("{\"role\": \"user\", \"content\": \"Thanks\"}"));
    JsonNode function = body.path("tools").get(0).path("function");
    assertThat(function.path("name").asText()).isEqualTo("add");
    assertThat(function.path("description").asText()).isEqualTo("Adds two integers.");
    JsonNode parameters = function.path("parameters");
    assertThat(parameters.path("type").asText()).isEqualTo("object");
    assertThat(parameters.path("required")).isEqualTo(json("[\"a\", \"b\"]"));
    JsonNode properties = parameters.path("properties");
    assertThat(properties.path("a"))
        .isEqualTo(json("{\"type\": \"integer\", \"description\": \"first\"}"));
    assertThat(properties.path("mode").path("enum")).isEqualTo(json("[\"exact\", \"rounded\"]"));
    assertThat(properties.path("tags"))
        .isEqualTo(json("{\"type\": \"array\", \"items\": {\"type\": \"string\"}}"));
    assertThat(properties.path("options").path("required")).isEqualTo(json("[\"precision\"]"));
    assertThat(properties.path("options").path("properties").path("precision"))
        .isEqualTo(json("{\"type\": \"integer\", \"minimum\": 0}"));
  }

  @Test
  void attachments_goAsContentParts_imagesTextAndPdf_andOtherTypesAreRefused() {
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
                new Attachment("a-1", "notes.txt", "text/plain"),
                new Attachment("a-2", "chart.png", "image/png"),
                new Attachment("a-3", "invoice.pdf", "application/pdf")));
    Map<String, AttachmentContent> bytes =
        Map.of(
            "a-1",
            new AttachmentContent(
                "a-1", "notes.txt", "text/plain", "hello notes".getBytes(StandardCharsets.UTF_8)),
            "a-2",
            new AttachmentContent("a-2", "chart.png", "image/png", new byte[] {1, 2}),
            "a-3",
            new AttachmentContent("a-3", "invoice.pdf", "application/pdf", new byte[] {3}));

    streaming()
        .generate(
            request(List.of(withFiles), List.of()).toBuilder().setAttachments(bytes).build(),
            new RecordingModelStream());

    JsonNode content = server.requests().get(0).json().path("messages").get(1).path("content");
    assertThat(content.get(0).path("text").asText()).isEqualTo("see attached");
    assertThat(content.get(1).path("text").asText()).isEqualTo("hello notes");
    assertThat(content.get(2).path("image_url").path("url").asText())
        .isEqualTo("data:image/png;base64,AQI=");
    assertThat(content.get(3).toString()).contains("Aw==");

    Message zip =
        new Message(
            Role.USER,
            "and this",
            null,
            null,
            null,
            null,
            List.of(new Attachment("a-4", "all.zip", "application/zip")));
    ModelException refused =
        modelFailure(
            () ->
                streaming()
                    .generate(
                        request(List.of(zip), List.of()).toBuilder()
                            .setAttachments(
                                Map.of(
                                    "a-4",
                                    new AttachmentContent(
                                        "a-4", "all.zip", "application/zip", new byte[] {4})))
                            .build(),
                        new RecordingModelStream()));
    assertThat(refused.code()).isEqualTo(FailureTypes.MODEL_REQUEST_INVALID);
    assertThat(refused.getMessage()).contains("a-4", "application/zip");
    assertThat(server.requests()).hasSize(1);
  }

  private static ModelException modelFailure(ThrowingCallable call) {
    ModelException failure = catchThrowableOfType(ModelException.class, call);
    assertThat(failure).as("the call fails with a ModelException").isNotNull();
    return failure;
  }

  static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
