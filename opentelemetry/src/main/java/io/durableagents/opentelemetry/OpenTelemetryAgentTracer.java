package io.durableagents.opentelemetry;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ModelResponse;
import io.durableagents.tracing.AgentTracer;
import io.durableagents.tracing.ModelTurnTrace;
import io.durableagents.tracing.ToolCallTrace;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * An {@link AgentTracer} that opens an OpenTelemetry span for each model turn ({@code chat
 * {model}}) and each tool call ({@code execute_tool {tool}}), with the attributes of the GenAI
 * semantic conventions. Each span is a child of the span current on the activity's thread (with
 * {@link TemporalTracing}'s worker interceptor, Temporal's {@code RunActivity:...} span) and is
 * current itself while the provider or the tool runs, so an HTTP client's own spans nest under it.
 *
 * <pre>{@code
 * AgentsPluginOptions.newBuilder()
 *     .setTracer(OpenTelemetryAgentTracer.of(openTelemetry))
 * }</pre>
 *
 * <p>Prompts, answers, tool arguments and results are recorded only with {@link
 * Builder#setCaptureContent(boolean)}: they may hold personal data.
 */
public final class OpenTelemetryAgentTracer implements AgentTracer {
  /** The instrumentation scope of the spans. */
  public static final String INSTRUMENTATION_NAME = "io.durableagents.opentelemetry";

  /** How many characters of one content attribute are kept by default. */
  public static final int DEFAULT_MAX_CONTENT_CHARS = 16_384;

  static final AttributeKey<String> OPERATION_NAME =
      AttributeKey.stringKey("gen_ai.operation.name");
  static final AttributeKey<String> PROVIDER_NAME = AttributeKey.stringKey("gen_ai.provider.name");
  static final AttributeKey<String> REQUEST_MODEL = AttributeKey.stringKey("gen_ai.request.model");
  static final AttributeKey<List<String>> FINISH_REASONS =
      AttributeKey.stringArrayKey("gen_ai.response.finish_reasons");
  static final AttributeKey<Long> INPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.input_tokens");
  static final AttributeKey<Long> OUTPUT_TOKENS =
      AttributeKey.longKey("gen_ai.usage.output_tokens");
  static final AttributeKey<String> CONVERSATION_ID =
      AttributeKey.stringKey("gen_ai.conversation.id");
  static final AttributeKey<String> TOOL_NAME = AttributeKey.stringKey("gen_ai.tool.name");
  static final AttributeKey<String> TOOL_CALL_ID = AttributeKey.stringKey("gen_ai.tool.call.id");
  static final AttributeKey<String> TOOL_TYPE = AttributeKey.stringKey("gen_ai.tool.type");
  static final AttributeKey<String> SYSTEM_INSTRUCTIONS =
      AttributeKey.stringKey("gen_ai.system_instructions");
  static final AttributeKey<String> INPUT_MESSAGES =
      AttributeKey.stringKey("gen_ai.input.messages");
  static final AttributeKey<String> OUTPUT_MESSAGES =
      AttributeKey.stringKey("gen_ai.output.messages");
  static final AttributeKey<String> TOOL_CALL_ARGUMENTS =
      AttributeKey.stringKey("gen_ai.tool.call.arguments");
  static final AttributeKey<String> TOOL_CALL_RESULT =
      AttributeKey.stringKey("gen_ai.tool.call.result");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<String> AGENT = AttributeKey.stringKey("durable_agents.agent");
  static final AttributeKey<Long> STEP = AttributeKey.longKey("durable_agents.step");

  private final Tracer tracer;
  private final Function<ModelProvider, String> providerName;
  private final GenAiContent content;

  private OpenTelemetryAgentTracer(Builder builder) {
    this.tracer = builder.openTelemetry.getTracer(INSTRUMENTATION_NAME);
    this.providerName = builder.providerName;
    this.content = builder.captureContent ? new GenAiContent(builder.maxContentChars) : null;
  }

  /** Spans on {@code openTelemetry}, without content. */
  public static OpenTelemetryAgentTracer of(OpenTelemetry openTelemetry) {
    return newBuilder(openTelemetry).build();
  }

  /** A builder of spans on {@code openTelemetry}. */
  public static Builder newBuilder(OpenTelemetry openTelemetry) {
    return new Builder(openTelemetry);
  }

  /**
   * The provider's name by its class: the simple name without {@code ModelProvider}, lower case
   * ({@code OpenAiModelProvider} is {@code openai}, {@code AnthropicModelProvider} {@code
   * anthropic}); {@code unknown} for a class without a usable name (a lambda, an anonymous class).
   */
  public static String providerNameOf(ModelProvider provider) {
    String name = provider.getClass().getSimpleName();
    if (name.isEmpty() || name.contains("$") || name.contains("/")) {
      return "unknown";
    }
    if (name.endsWith("ModelProvider") && name.length() > "ModelProvider".length()) {
      name = name.substring(0, name.length() - "ModelProvider".length());
    }
    return name.toLowerCase(Locale.ROOT);
  }

  @Override
  public ModelTurnTrace modelTurn(ModelProvider provider, ModelRequest request) {
    String model = request.model();
    SpanBuilder builder =
        tracer
            .spanBuilder(model == null ? "chat" : "chat " + model)
            .setSpanKind(SpanKind.CLIENT)
            .setAttribute(OPERATION_NAME, "chat")
            .setAttribute(PROVIDER_NAME, providerName.apply(provider))
            .setAttribute(AGENT, request.agent())
            .setAttribute(STEP, (long) request.step());
    if (model != null) {
      builder.setAttribute(REQUEST_MODEL, model);
    }
    if (request.sessionId() != null) {
      builder.setAttribute(CONVERSATION_ID, request.sessionId());
    }
    if (content != null) {
      if (request.instructions() != null && !request.instructions().isEmpty()) {
        builder.setAttribute(
            SYSTEM_INSTRUCTIONS, content.systemInstructions(request.instructions()));
      }
      builder.setAttribute(INPUT_MESSAGES, content.inputMessages(request.messages()));
    }
    Span span = builder.startSpan();
    return new ModelTurnSpan(span, current(span));
  }

  @Override
  public ToolCallTrace toolCall(
      String sessionId, String agent, String tool, String toolCallId, JsonNode arguments) {
    SpanBuilder builder =
        tracer
            .spanBuilder("execute_tool " + tool)
            .setSpanKind(SpanKind.INTERNAL)
            .setAttribute(OPERATION_NAME, "execute_tool")
            .setAttribute(TOOL_NAME, tool)
            .setAttribute(TOOL_TYPE, "function")
            .setAttribute(AGENT, agent);
    if (toolCallId != null) {
      builder.setAttribute(TOOL_CALL_ID, toolCallId);
    }
    if (sessionId != null) {
      builder.setAttribute(CONVERSATION_ID, sessionId);
    }
    if (content != null) {
      builder.setAttribute(TOOL_CALL_ARGUMENTS, content.json(arguments));
    }
    Span span = builder.startSpan();
    return new ToolCallSpan(span, current(span));
  }

  /**
   * Makes {@code span} current on this thread until its trace ends: the scope outlives this call,
   * and the activity ends the trace on the same thread (see {@link AgentTracer}), which closes it.
   */
  @SuppressWarnings("MustBeClosedChecker")
  private static Scope current(Span span) {
    return span.makeCurrent();
  }

  /** Ends a span: marks it failed with {@code errorType} when there is one, leaves its scope. */
  private static void end(Span span, Scope scope, String errorType, String message) {
    if (errorType != null) {
      span.setAttribute(ERROR_TYPE, errorType);
      span.setStatus(StatusCode.ERROR, message == null ? errorType : message);
    }
    scope.close();
    span.end();
  }

  private final class ModelTurnSpan implements ModelTurnTrace {
    private final Span span;
    private final Scope scope;

    ModelTurnSpan(Span span, Scope scope) {
      this.span = span;
      this.scope = scope;
    }

    @Override
    public void answered(ModelResponse response) {
      if (response.finishReason() != null) {
        span.setAttribute(FINISH_REASONS, List.of(response.finishReason()));
      }
      span.setAttribute(INPUT_TOKENS, response.usage().inputTokens());
      span.setAttribute(OUTPUT_TOKENS, response.usage().outputTokens());
      if (content != null) {
        span.setAttribute(OUTPUT_MESSAGES, content.outputMessages(response));
      }
      end(span, scope, null, null);
    }

    @Override
    public void failed(String errorType, String message) {
      end(span, scope, errorType, message);
    }
  }

  private final class ToolCallSpan implements ToolCallTrace {
    private final Span span;
    private final Scope scope;

    ToolCallSpan(Span span, Scope scope) {
      this.span = span;
      this.scope = scope;
    }

    @Override
    public void ended(JsonNode result, String errorCode) {
      if (content != null) {
        span.setAttribute(TOOL_CALL_RESULT, content.json(result));
      }
      end(span, scope, errorCode, errorCode == null ? null : result.path("message").asText(null));
    }

    @Override
    public void failed(String errorType, String message) {
      end(span, scope, errorType, message);
    }
  }

  /** Options of an {@link OpenTelemetryAgentTracer}. */
  public static final class Builder {
    private final OpenTelemetry openTelemetry;
    private boolean captureContent;
    private int maxContentChars = DEFAULT_MAX_CONTENT_CHARS;
    private Function<ModelProvider, String> providerName = OpenTelemetryAgentTracer::providerNameOf;

    private Builder(OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
    }

    /**
     * Records the content (default off): the instructions, messages and answer of each turn ({@code
     * gen_ai.system_instructions}, {@code gen_ai.input.messages}, {@code gen_ai.output.messages})
     * and the arguments and result of each tool call ({@code gen_ai.tool.call.arguments}, {@code
     * gen_ai.tool.call.result}), each cut at {@link #setMaxContentChars}.
     */
    public Builder setCaptureContent(boolean captureContent) {
      this.captureContent = captureContent;
      return this;
    }

    /**
     * How many characters of JSON one content attribute keeps (default {@value
     * #DEFAULT_MAX_CONTENT_CHARS}); a longer one is cut there and ends with an ellipsis.
     */
    public Builder setMaxContentChars(int maxContentChars) {
      if (maxContentChars < 1) {
        throw new IllegalArgumentException(
            "maxContentChars must be at least 1, got " + maxContentChars);
      }
      this.maxContentChars = maxContentChars;
      return this;
    }

    /**
     * What names a turn's provider in {@code gen_ai.provider.name} (default {@link
     * #providerNameOf}, by the provider's class): for a provider whose class says nothing, or to
     * use the conventions' names, such as {@code azure.ai.openai} for an OpenAI-compatible client
     * of Azure.
     */
    public Builder setProviderName(Function<ModelProvider, String> providerName) {
      this.providerName = Objects.requireNonNull(providerName, "providerName");
      return this;
    }

    /** The tracer, for {@code AgentsPluginOptions.Builder.setTracer}. */
    public OpenTelemetryAgentTracer build() {
      return new OpenTelemetryAgentTracer(this);
    }
  }
}
