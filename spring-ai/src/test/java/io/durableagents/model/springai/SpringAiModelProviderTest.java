package io.durableagents.model.springai;

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
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ModelResponse;
import io.durableagents.model.ToolDefinition;
import io.durableagents.model.openai.FakeChatCompletionsServer;
import io.durableagents.model.openai.Wire;
import io.durableagents.testing.RecordingModelStream;
import io.durableagents.workflow.FailureTypes;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.ai.openai.api.OpenAiApi;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.retry.support.RetryTemplate;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClientResponseException;

/**
 * The provider with Spring AI's {@link OpenAiChatModel} against a fake Chat Completions server:
 * streaming, tool calls, usage, finish reasons, each failure as Spring AI reports it, cancellation
 * and the request the model receives.
 */
class SpringAiModelProviderTest {
  /**
   * How soon a cancelled call must return: the stream it hangs up on never ends, so any bound
   * proves the hang-up; this one leaves room for a busy machine, as the other providers' tests do.
   */
  private static final Duration PROMPTLY = Duration.ofSeconds(5);

  private static final ObjectMapper JSON = new ObjectMapper();

  private final FakeChatCompletionsServer server = new FakeChatCompletionsServer();

  @AfterEach
  void close() {
    server.close();
  }

  private SpringAiModelProvider provider() {
    return SpringAiModelProvider.of(SpringAiTestModels.openAi(server));
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
  void streamedText_goesToTheStreamDeltaByDelta_andTheAnswerHasTextStopAndUsage() {
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
  void toolCallsSplitAcrossChunks_comeBackJoined_andNoToolRunsInsideSpringAi() {
    server.reply(FakeChatCompletionsServer.stream(Wire.TOOL_CALLS));
    RecordingModelStream stream = new RecordingModelStream();
    ToolDefinition add =
        new ToolDefinition(
            "add", "Adds two integers.", json("{\"type\":\"object\",\"properties\":{}}"));
    ToolDefinition echo = new ToolDefinition("echo", null, null);

    ModelResponse response =
        provider().generate(request(List.of(Message.user("add")), List.of(add, echo)), stream);

    // Had Spring AI run the tools itself, the definition-only callbacks would have thrown.
    assertThat(stream.events).containsExactly("text:Let me add.");
    assertThat(response.text()).isEqualTo("Let me add.");
    assertThat(response.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    assertThat(response.toolCalls())
        .containsExactly(
            new ToolCall("call_Add1", "add", json("{\"a\":1,\"b\":2}")),
            new ToolCall("call_Echo2", "echo", json("{\"text\":\"x\"}")));
    assertThat(response.usage()).isEqualTo(new Usage(120, 40));
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void finishReasons_lengthAndContentFilter_areMapped() {
    server.reply(
        FakeChatCompletionsServer.stream(
            Wire.chunk("{\"role\":\"assistant\",\"content\":\"Cut sh\"}", null)
                + Wire.chunk("{}", "length")
                + "data: [DONE]\n\n"),
        FakeChatCompletionsServer.stream(
            Wire.chunk("{\"role\":\"assistant\",\"content\":\"\"}", null)
                + Wire.chunk("{}", "content_filter")
                + "data: [DONE]\n\n"));
    SpringAiModelProvider provider = provider();

    assertThat(provider.generate(hello(), new RecordingModelStream()).finishReason())
        .isEqualTo(FinishReason.LENGTH);
    assertThat(provider.generate(hello(), new RecordingModelStream()).finishReason())
        .isEqualTo("content-filter");
  }

  @Test
  void finishReasons_ofEachVendor_inAnyCase_mapToTheSessionsWords() {
    assertThat(ChatResponseAccumulator.finishReason("STOP", false)).isEqualTo("stop");
    assertThat(ChatResponseAccumulator.finishReason("end_turn", false)).isEqualTo("stop");
    assertThat(ChatResponseAccumulator.finishReason("stop", true)).isEqualTo("tool-calls");
    assertThat(ChatResponseAccumulator.finishReason("TOOL_CALLS", true)).isEqualTo("tool-calls");
    assertThat(ChatResponseAccumulator.finishReason("tool_use", true)).isEqualTo("tool-calls");
    assertThat(ChatResponseAccumulator.finishReason("LENGTH", false)).isEqualTo("length");
    assertThat(ChatResponseAccumulator.finishReason("MAX_TOKENS", false)).isEqualTo("length");
    assertThat(ChatResponseAccumulator.finishReason("CONTENT_FILTER", false))
        .isEqualTo("content-filter");
    assertThat(ChatResponseAccumulator.finishReason("SAFETY", false)).isEqualTo("content-filter");
    assertThat(ChatResponseAccumulator.finishReason("pause_turn", false)).isEqualTo("other");
    assertThat(ChatResponseAccumulator.finishReason(null, false)).isEqualTo("stop");
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
    assertThat(response.toolCalls().get(0).arguments()).isEqualTo(TextNode.valueOf("{\"a\": 1,"));
  }

  @Test
  void rateLimited_429WithRetryAfter_isTransientModelRateLimited_afterThatWait() {
    server.reply(
        FakeChatCompletionsServer.status(
            429,
            Map.of("Content-Type", "application/json", "Retry-After", "7"),
            "{\"error\":{\"message\":\"Rate limit reached for gpt-4o-mini\",\"type\":\"requests\","
                + "\"param\":null,\"code\":\"rate_limit_exceeded\"}}"),
        FakeChatCompletionsServer.stream(Wire.PLAIN_ANSWER));
    SpringAiModelProvider provider = provider();

    ModelException failure =
        modelFailure(() -> provider.generate(hello(), new RecordingModelStream()));

    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_RATE_LIMITED);
    assertThat(failure.retryable()).isTrue();
    assertThat(failure.retryAfter()).isEqualTo(Duration.ofSeconds(7));
    assertThat(failure.getMessage()).contains("HTTP 429", "Rate limit reached for gpt-4o-mini");
    assertThat(server.requests()).as("Spring AI did not retry").hasSize(1);
    assertThat(provider.generate(hello(), new RecordingModelStream()).text())
        .isEqualTo("Hello there!");
  }

  @Test
  void serverError_500_isTransientModelUnavailable() {
    server.reply(
        FakeChatCompletionsServer.status(
            500,
            Map.of("Content-Type", "application/json"),
            "{\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\"}}"));

    ModelException failure =
        modelFailure(() -> provider().generate(hello(), new RecordingModelStream()));

    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_UNAVAILABLE);
    assertThat(failure.retryable()).isTrue();
    assertThat(failure.retryAfter()).isNull();
    assertThat(failure.getMessage()).contains("HTTP 500", "The server had an error");
    assertThat(failure.partialText()).isNull();
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void badRequest_400_isPermanentModelRequestInvalid_withTheServersMessage() {
    server.reply(
        FakeChatCompletionsServer.status(
            400,
            Map.of("Content-Type", "application/json"),
            "{\"error\":{\"message\":\"Invalid value for 'messages[1].role'.\","
                + "\"type\":\"invalid_request_error\",\"code\":\"invalid_value\"}}"));

    ModelException failure =
        modelFailure(() -> provider().generate(hello(), new RecordingModelStream()));

    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_REQUEST_INVALID);
    assertThat(failure.retryable()).isFalse();
    assertThat(failure.getMessage())
        .contains("HTTP 400", "Invalid value for 'messages[1].role'", "invalid_request_error");
  }

  @Test
  void aRequestOverTheModelsContextWindow_isContextExceeded_notRetried() {
    server.contextWindow(500);
    ModelRequest longer =
        request(List.of(Message.user("a long document. ".repeat(200))), List.of());

    ModelException failure =
        modelFailure(() -> provider().generate(longer, new RecordingModelStream()));

    assertThat(failure.code()).isEqualTo(FailureTypes.CONTEXT_EXCEEDED);
    assertThat(failure.retryable()).isFalse();
    assertThat(failure.getMessage()).contains("HTTP 400", "maximum context length is 500 tokens");
  }

  @Test
  void streamCutInTheMiddle_isIncompleteResponse_keepingOnlyTheStreamedText() {
    server.reply(FakeChatCompletionsServer.stream(Wire.CUT_AFTER_TOOL_CALL));
    RecordingModelStream stream = new RecordingModelStream();

    ModelException failure = modelFailure(() -> provider().generate(hello(), stream));

    assertThat(failure.code()).isEqualTo(FailureTypes.INCOMPLETE_RESPONSE);
    assertThat(failure.retryable()).isFalse();
    assertThat(failure.partialText()).isEqualTo("Adding");
    assertThat(stream.events).containsExactly("text:Adding");
  }

  @Test
  void anErrorEventMidStream_isDroppedBySpringAi_soTheCutStreamIsIncompleteResponse() {
    // Spring AI's OpenAI model reads {"error": ...} as a chunk without choices and goes on; the
    // stream then ends without a finish reason, which is all the provider can see.
    server.reply(
        FakeChatCompletionsServer.stream(
            Wire.chunk("{\"role\":\"assistant\",\"content\":\"Half \"}", null)
                + Wire.chunk("{\"content\":\"an ans\"}", null)
                + "data: {\"error\":{\"message\":\"The server had an error while processing your"
                + " request.\",\"type\":\"server_error\"}}\n\n"));

    ModelException failure =
        modelFailure(() -> provider().generate(hello(), new RecordingModelStream()));

    assertThat(failure.code()).isEqualTo(FailureTypes.INCOMPLETE_RESPONSE);
    assertThat(failure.retryable()).isFalse();
    assertThat(failure.partialText()).isEqualTo("Half an ans");
  }

  @Test
  void aMalformedChunk_isPermanentModelResponseInvalid() {
    server.reply(
        FakeChatCompletionsServer.stream(
            Wire.chunk("{\"role\":\"assistant\",\"content\":\"Hi\"}", null)
                + "data: {\"id\":\"chatcmpl-G\",\"choices\":[{\"index\":0,\"delta\":{\"content\n\n"));

    ModelException failure =
        modelFailure(() -> provider().generate(hello(), new RecordingModelStream()));

    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_RESPONSE_INVALID);
    assertThat(failure.retryable()).isFalse();
  }

  @Test
  void connectionRefused_isTransientModelUnavailable() throws IOException {
    int port;
    try (ServerSocket socket =
        new ServerSocket(0, 1, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}))) {
      port = socket.getLocalPort();
    }
    OpenAiChatModel model =
        OpenAiChatModel.builder()
            .openAiApi(
                OpenAiApi.builder().baseUrl("http://127.0.0.1:" + port).apiKey("sk-x").build())
            .defaultOptions(OpenAiChatOptions.builder().model("m").build())
            .retryTemplate(RetryTemplate.builder().maxAttempts(1).build())
            .build();

    ModelException failure =
        modelFailure(
            () -> SpringAiModelProvider.of(model).generate(hello(), new RecordingModelStream()));

    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_UNAVAILABLE);
    assertThat(failure.retryable()).isTrue();
  }

  @Test
  void aSilentServer_isATransientModelTimeout_andTheWaitHeartbeats() {
    server.reply(
        FakeChatCompletionsServer.delayed(
            3000, FakeChatCompletionsServer.stream(Wire.PLAIN_ANSWER)));
    SpringAiModelProvider provider =
        SpringAiModelProvider.newBuilder(SpringAiTestModels.openAi(server))
            .setIdleTimeout(Duration.ofMillis(1500))
            .build();
    RecordingModelStream stream = new RecordingModelStream();

    ModelException failure = modelFailure(() -> provider.generate(hello(), stream));

    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_TIMEOUT);
    assertThat(failure.retryable()).isTrue();
    assertThat(stream.alive).isPositive();
  }

  @Test
  void aCancelReportedByText_stopsTheCallPromptly_andTheServerSeesTheConnectionClose()
      throws Exception {
    CountDownLatch hungUp = new CountDownLatch(1);
    server.reply(FakeChatCompletionsServer.endless("one", 50, hungUp));
    RuntimeException cancelled = new IllegalStateException("activity cancelled");
    AtomicLong cancelledAt = new AtomicLong();
    RecordingModelStream stream =
        new RecordingModelStream() {
          @Override
          public void text(String delta) {
            super.text(delta);
            cancelledAt.set(System.nanoTime());
            throw cancelled;
          }
        };

    assertThatThrownBy(() -> provider().generate(hello(), stream)).isSameAs(cancelled);

    assertThat(Duration.ofNanos(System.nanoTime() - cancelledAt.get())).isLessThan(PROMPTLY);
    assertThat(stream.events).containsExactly("text:one");
    assertThat(hungUp.await(10, TimeUnit.SECONDS))
        .as("the server noticed the client hung up")
        .isTrue();
  }

  @Test
  void aCancelReportedByAlive_whileTheModelIsSilent_stopsTheCall() throws Exception {
    CountDownLatch hungUp = new CountDownLatch(1);
    server.reply(
        FakeChatCompletionsServer.delayed(
            1500, FakeChatCompletionsServer.endless("late", 50, hungUp)));
    RuntimeException cancelled = new IllegalStateException("activity cancelled");
    AtomicLong cancelledAt = new AtomicLong();
    RecordingModelStream stream =
        new RecordingModelStream() {
          @Override
          public void alive() {
            cancelledAt.set(System.nanoTime());
            throw cancelled;
          }
        };

    assertThatThrownBy(() -> provider().generate(hello(), stream)).isSameAs(cancelled);

    assertThat(Duration.ofNanos(System.nanoTime() - cancelledAt.get())).isLessThan(PROMPTLY);
    assertThat(stream.events).isEmpty();
    assertThat(hungUp.await(10, TimeUnit.SECONDS))
        .as("the server noticed the client hung up")
        .isTrue();
  }

  @Test
  void requestBody_carriesTheConversationAndTheTools_withTheChatModelsOwnModel() {
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
    JsonNode schema =
        json(
            "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}");

    provider()
        .generate(
            request(messages, List.of(new ToolDefinition("add", "Adds two integers.", schema))),
            new RecordingModelStream());

    FakeChatCompletionsServer.Recorded sent = server.requests().get(0);
    assertThat(sent.path()).isEqualTo("/v1/chat/completions");
    assertThat(sent.header("Authorization")).isEqualTo("Bearer sk-test-key");
    JsonNode body = sent.json();
    assertThat(body.path("model").asText())
        .as("the chat model's default, not the agent's model name")
        .isEqualTo(SpringAiTestModels.DEFAULT_MODEL);
    assertThat(body.path("stream").asBoolean()).isTrue();
    assertThat(body.path("messages"))
        .isEqualTo(
            json(
                """
                [{"role": "system", "content": "Be brief."},
                 {"role": "user", "content": "What is 1+2?"},
                 {"role": "assistant", "content": "Let me add.", "tool_calls": [
                   {"id": "call_Add1", "type": "function", "function": {"name": "add", "arguments": "{\\"a\\":1,\\"b\\":2}"}},
                   {"id": "call_Bad2", "type": "function", "function": {"name": "add", "arguments": "{\\"a\\":"}}]},
                 {"role": "tool", "name": "add", "tool_call_id": "call_Add1", "content": "{\\"sum\\":3}"},
                 {"role": "tool", "name": "add", "tool_call_id": "call_Bad2", "content": "{\\"error\\":\\"invalid_arguments\\",\\"message\\":\\"not JSON\\"}"},
                 {"role": "assistant", "content": "It is 3."},
                 {"role": "user", "content": "Thanks"}]
                """));
    assertThat(body.path("tools")).hasSize(1);
    JsonNode function = body.path("tools").get(0).path("function");
    assertThat(body.path("tools").get(0).path("type").asText()).isEqualTo("function");
    assertThat(function.path("name").asText()).isEqualTo("add");
    assertThat(function.path("description").asText()).isEqualTo("Adds two integers.");
    assertThat(function.path("parameters")).isEqualTo(schema);
  }

  @Test
  void onSpringsJdkHttpClientConnector_aCancelStillEndsTheTurnAtOnce() {
    // That connector reads a response to its end after a cancel (Spring Framework 6.2 caches the
    // body), so only the turn stops at once; the documentation recommends Reactor Netty.
    CountDownLatch hungUp = new CountDownLatch(1);
    server.reply(FakeChatCompletionsServer.endless("one", 50, hungUp));
    RuntimeException cancelled = new IllegalStateException("activity cancelled");
    AtomicLong cancelledAt = new AtomicLong();
    RecordingModelStream stream =
        new RecordingModelStream() {
          @Override
          public void text(String delta) {
            super.text(delta);
            cancelledAt.set(System.nanoTime());
            throw cancelled;
          }
        };
    SpringAiModelProvider provider =
        SpringAiModelProvider.of(SpringAiTestModels.openAiOnJdkHttpClient(server));

    assertThatThrownBy(() -> provider.generate(hello(), stream)).isSameAs(cancelled);

    assertThat(Duration.ofNanos(System.nanoTime() - cancelledAt.get())).isLessThan(PROMPTLY);
    assertThat(stream.events).containsExactly("text:one");
  }

  @Test
  void aModelThatCannotStream_isCalledOnAHelperThread_withTheSameAnswer() {
    server.reply(
        FakeChatCompletionsServer.status(
            200,
            Map.of("Content-Type", "application/json"),
            """
            {"id": "chatcmpl-C1", "object": "chat.completion", "created": 1735689600,
             "model": "gpt-4o-mini-2024-07-18",
             "choices": [{"index": 0, "finish_reason": "tool_calls",
               "message": {"role": "assistant", "content": "Let me add.",
                 "tool_calls": [{"id": "call_Add1", "type": "function",
                   "function": {"name": "add", "arguments": "{\\"a\\":1,\\"b\\":2}"}}]}}],
             "usage": {"prompt_tokens": 50, "completion_tokens": 12, "total_tokens": 62}}
            """));
    RecordingModelStream stream = new RecordingModelStream();

    ModelResponse response =
        SpringAiModelProvider.of(SpringAiTestModels.blockingOnly(SpringAiTestModels.openAi(server)))
            .generate(hello(), stream);

    assertThat(stream.events).containsExactly("text:Let me add.");
    assertThat(response.toolCalls())
        .containsExactly(new ToolCall("call_Add1", "add", json("{\"a\":1,\"b\":2}")));
    assertThat(response.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    assertThat(response.usage()).isEqualTo(new Usage(50, 12));
    assertThat(server.requests().get(0).json().path("stream").asBoolean()).isFalse();
  }

  @Test
  void blockingCallRefusals_asSpringAisErrorHandlerReportsThem_keepTheirStatus() {
    // Spring AI's default handler throws NonTransientAiException("429 - body") for any 4xx and
    // TransientAiException("500 - body") for 5xx, without the headers: no Retry-After here.
    server.reply(
        FakeChatCompletionsServer.status(
            429,
            Map.of("Content-Type", "application/json", "Retry-After", "7"),
            "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\"}}"),
        FakeChatCompletionsServer.status(503, Map.of(), "upstream overloaded"),
        FakeChatCompletionsServer.status(
            401,
            Map.of("Content-Type", "application/json"),
            "{\"error\":{\"message\":\"Incorrect API key provided\",\"type\":\"invalid_request_error\"}}"));
    SpringAiModelProvider provider =
        SpringAiModelProvider.of(
            SpringAiTestModels.blockingOnly(SpringAiTestModels.openAi(server)));

    ModelException limited =
        modelFailure(() -> provider.generate(hello(), new RecordingModelStream()));
    ModelException down =
        modelFailure(() -> provider.generate(hello(), new RecordingModelStream()));
    ModelException refused =
        modelFailure(() -> provider.generate(hello(), new RecordingModelStream()));

    assertThat(limited.code()).isEqualTo(FailureTypes.MODEL_RATE_LIMITED);
    assertThat(limited.retryable()).isTrue();
    assertThat(limited.retryAfter()).isNull();
    assertThat(limited.getMessage()).contains("HTTP 429", "Rate limit reached (requests)");
    assertThat(down.code()).isEqualTo(FailureTypes.MODEL_UNAVAILABLE);
    assertThat(down.retryable()).isTrue();
    assertThat(down.getMessage()).contains("HTTP 503", "upstream overloaded");
    assertThat(refused.code()).isEqualTo(FailureTypes.MODEL_REQUEST_INVALID);
    assertThat(refused.retryable()).isFalse();
    assertThat(refused.getMessage()).contains("HTTP 401", "Incorrect API key provided");
    assertThat(server.requests()).as("Spring AI did not retry").hasSize(3);
  }

  @Test
  void springWebRefusals_giveStatusHeadersAndBody() {
    HttpHeaders headers = new HttpHeaders();
    headers.set("Retry-After", "3");
    SpringAiModelProvider limited =
        SpringAiModelProvider.of(
            failing(
                HttpClientErrorException.create(
                    HttpStatus.TOO_MANY_REQUESTS,
                    "Too Many Requests",
                    headers,
                    "{\"error\":{\"message\":\"slow down\"}}".getBytes(StandardCharsets.UTF_8),
                    StandardCharsets.UTF_8)));
    SpringAiModelProvider invalid =
        SpringAiModelProvider.of(
            failing(
                new RestClientResponseException(
                    "Unprocessable",
                    HttpStatus.UNPROCESSABLE_ENTITY,
                    "Unprocessable",
                    new HttpHeaders(),
                    "{\"message\":\"messages: must not be empty\"}"
                        .getBytes(StandardCharsets.UTF_8),
                    StandardCharsets.UTF_8)));
    SpringAiModelProvider unreachable =
        SpringAiModelProvider.of(
            failing(new ResourceAccessException("I/O error", new ConnectException("refused"))));

    ModelException rate = modelFailure(() -> limited.generate(hello(), new RecordingModelStream()));
    ModelException bad = modelFailure(() -> invalid.generate(hello(), new RecordingModelStream()));
    ModelException down =
        modelFailure(() -> unreachable.generate(hello(), new RecordingModelStream()));

    assertThat(rate.code()).isEqualTo(FailureTypes.MODEL_RATE_LIMITED);
    assertThat(rate.retryAfter()).isEqualTo(Duration.ofSeconds(3));
    assertThat(rate.getMessage()).contains("slow down");
    assertThat(bad.code()).isEqualTo(FailureTypes.MODEL_REQUEST_INVALID);
    assertThat(bad.retryable()).isFalse();
    assertThat(bad.getMessage()).contains("HTTP 422", "messages: must not be empty");
    assertThat(down.code()).isEqualTo(FailureTypes.MODEL_UNAVAILABLE);
    assertThat(down.retryable()).isTrue();
  }

  @Test
  void springAisOwnRefusal_isModelRequestInvalid_andAnUnknownFailure_aTransientModelError() {
    ModelException refused =
        modelFailure(
            () ->
                SpringAiModelProvider.of(
                        failing(new IllegalArgumentException("Audio output is not supported")))
                    .generate(hello(), new RecordingModelStream()));
    ModelException unknown =
        modelFailure(
            () ->
                SpringAiModelProvider.of(failing(new NullPointerException("choices")))
                    .generate(hello(), new RecordingModelStream()));

    assertThat(refused.code()).isEqualTo(FailureTypes.MODEL_REQUEST_INVALID);
    assertThat(refused.retryable()).isFalse();
    assertThat(refused.getMessage()).contains("Audio output is not supported");
    assertThat(unknown.code()).isEqualTo(FailureTypes.MODEL_ERROR);
    assertThat(unknown.retryable()).isTrue();
  }

  @Test
  void aToolCallback_refusesToRun() {
    DefinitionOnlyToolCallback callback =
        new DefinitionOnlyToolCallback(
            new ToolDefinition("book_table", "Books.", null), "{\"type\":\"object\"}");

    assertThat(callback.getToolDefinition().name()).isEqualTo("book_table");
    assertThatThrownBy(() -> callback.call("{}"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("book_table");
  }

  /** A blocking-only chat model whose every call fails with {@code failure}. */
  private static ChatModel failing(RuntimeException failure) {
    return new ChatModel() {
      @Override
      public ChatResponse call(Prompt prompt) {
        throw failure;
      }
    };
  }

  @Test
  void anImageAttachment_goesToTheModelAsMediaOfTheUserMessage() {
    server.reply(FakeChatCompletionsServer.stream(Wire.PLAIN_ANSWER));
    Message withImage =
        new Message(
            Role.USER,
            "what is this?",
            null,
            null,
            null,
            null,
            List.of(new Attachment("a-1", "chart.png", "image/png")));
    ModelRequest request =
        request(List.of(withImage), List.of()).toBuilder()
            .setAttachments(
                Map.of(
                    "a-1",
                    new AttachmentContent("a-1", "chart.png", "image/png", new byte[] {1, 2})))
            .build();

    provider().generate(request, new RecordingModelStream());

    JsonNode content = server.requests().get(0).json().path("messages").get(1).path("content");
    assertThat(content.findValuesAsText("text")).containsExactly("what is this?");
    assertThat(content.findPath("image_url").path("url").asText())
        .isEqualTo("data:image/png;base64,AQI=");
  }

  @Test
  void setModel_sendsThatModelName() {
    server.reply(FakeChatCompletionsServer.stream(Wire.PLAIN_ANSWER));

    SpringAiModelProvider.newBuilder(SpringAiTestModels.openAi(server))
        .setModel("gpt-4.1")
        .build()
        .generate(hello(), new RecordingModelStream());

    assertThat(server.requests().get(0).json().path("model").asText()).isEqualTo("gpt-4.1");
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
