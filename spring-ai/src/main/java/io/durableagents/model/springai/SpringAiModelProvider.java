package io.durableagents.model.springai;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.model.ModelEventQueue;
import io.durableagents.model.ModelException;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ModelResponse;
import io.durableagents.model.ModelStream;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * Any Spring AI {@link ChatModel} (OpenAI, Anthropic, Ollama, Gemini, Bedrock, Mistral...) as a
 * model provider. Each turn is one {@code chatModel.stream(prompt)} call: text goes to the {@link
 * ModelStream} as it arrives, tool calls, usage and the finish reason are collected. A model that
 * cannot stream ({@code stream} throws {@link UnsupportedOperationException}) is called with {@code
 * call(prompt)} on a helper thread instead.
 *
 * <pre>{@code
 * ModelProvider model = SpringAiModelProvider.of(chatModel);   // e.g. an injected OpenAiChatModel
 * AgentsPlugin plugin = new AgentsPlugin(AgentsPluginOptions.newBuilder()
 *     .addAgent(concierge).setModelProvider(model).setStore(store).build());
 * }</pre>
 *
 * <p>Tools go to the model as definitions only, with Spring AI's internal tool execution off: the
 * model's tool calls come back to the session, which runs them as activities (durably, with
 * approvals). Turn Spring AI's own retries off (a {@code RetryTemplate} of one attempt, {@code
 * spring.ai.retry.max-attempts=1}): the model activity's retry policy retries, durably and visibly.
 *
 * <p>Failures: HTTP 429 is a transient {@code model_rate_limited} after the server's {@code
 * Retry-After} (when Spring AI passes the headers on), 5xx, 408 and connection failures a transient
 * {@code model_unavailable}, any other refusal a permanent {@code model_request_invalid} with the
 * server's message; a stream that ends without a finish reason is a permanent {@code
 * incomplete_response}, and none of its answer is used. A failure after text was streamed carries
 * that text ({@link ModelException#partialText()}).
 *
 * <p>Model name: without {@link Builder#setModel}, the chat model's own default options choose the
 * model, whatever the agent's {@code model} says (an agent's model name is often another vendor's,
 * or {@code scripted}); with it, that name is sent on every request. Thread-safe: one instance
 * serves every turn of a worker.
 */
public final class SpringAiModelProvider implements ModelProvider {
  /** Default for {@link Builder#setIdleTimeout}. */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(5);

  /** Runs the blocking calls of models that cannot stream; daemon threads, made on demand. */
  private static final ExecutorService BLOCKING_CALLS =
      Executors.newCachedThreadPool(
          new java.util.concurrent.ThreadFactory() {
            private final AtomicInteger count = new AtomicInteger();

            @Override
            public Thread newThread(Runnable task) {
              Thread thread = new Thread(task, "spring-ai-call-" + count.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            }
          });

  private final ChatModel chatModel;
  private final String model;
  private final Duration idleTimeout;
  private final ObjectMapper mapper = new ObjectMapper();
  private final PromptMapper prompts = new PromptMapper(mapper);
  private final SpringAiErrors errors = new SpringAiErrors(mapper);

  private SpringAiModelProvider(Builder builder) {
    this.chatModel = builder.chatModel;
    this.model = builder.model;
    this.idleTimeout = builder.idleTimeout;
  }

  /** A provider of {@code chatModel} with the defaults: its own model, a 5-minute idle timeout. */
  public static SpringAiModelProvider of(ChatModel chatModel) {
    return newBuilder(chatModel).build();
  }

  /** A builder of a provider of {@code chatModel}. */
  public static Builder newBuilder(ChatModel chatModel) {
    return new Builder(chatModel);
  }

  /** The model name sent on every request, or null when the chat model's default is used. */
  public String model() {
    return model;
  }

  @Override
  public ModelResponse generate(ModelRequest request, ModelStream stream) {
    Prompt prompt = prompts.prompt(request, model);
    ChatResponseAccumulator answer = new ChatResponseAccumulator();
    // The model's failures are classified where they arise; anything else thrown here comes from
    // the activity's ModelStream (a cancel) and passes on unchanged.
    try {
      Flux<ChatResponse> flux;
      try {
        flux = chatModel.stream(prompt);
      } catch (UnsupportedOperationException notStreaming) {
        return blocking(prompt, stream, answer);
      } catch (RuntimeException e) {
        throw errors.classify(e);
      }
      try {
        return streamed(flux, stream, answer);
      } catch (NotStreaming notStreaming) {
        return blocking(prompt, stream, answer);
      }
    } catch (ModelException e) {
      throw e.withPartialText(answer.text());
    }
  }

  private ModelResponse streamed(
      Flux<ChatResponse> flux, ModelStream stream, ChatResponseAccumulator answer) {
    ModelEventQueue<ChatResponse> events = new ModelEventQueue<>(idleTimeout);
    AtomicBoolean received = new AtomicBoolean();
    Disposable subscription =
        flux.subscribe(
            response -> {
              received.set(true);
              events.put(response);
            },
            error ->
                events.fail(
                    error instanceof UnsupportedOperationException && !received.get()
                        ? new NotStreaming()
                        : errors.classify(error)),
            events::complete);
    try {
      for (ChatResponse response = events.take(stream);
          response != null;
          response = events.take(stream)) {
        answer.add(response, stream);
      }
      return answer.finish(true);
    } finally {
      // A cancel or a failure stops the model's HTTP call here.
      subscription.dispose();
    }
  }

  private ModelResponse blocking(
      Prompt prompt, ModelStream stream, ChatResponseAccumulator answer) {
    ModelEventQueue<ChatResponse> events = new ModelEventQueue<>(idleTimeout);
    Future<?> call =
        BLOCKING_CALLS.submit(
            () -> {
              try {
                events.put(chatModel.call(prompt));
                events.complete();
              } catch (RuntimeException e) {
                events.fail(errors.classify(e));
              } catch (Error e) {
                events.fail(e);
              }
            });
    try {
      for (ChatResponse response = events.take(stream);
          response != null;
          response = events.take(stream)) {
        answer.add(response, stream);
      }
      return answer.finish(false);
    } finally {
      // Interrupts a blocking call still running (the HTTP client may or may not abort on it).
      call.cancel(true);
    }
  }

  /** The model's stream said it cannot stream before it sent anything: call it instead. */
  private static final class NotStreaming extends RuntimeException {
    NotStreaming() {
      super("streaming is not supported", null, false, false);
    }
  }

  @Override
  public String toString() {
    return "SpringAiModelProvider["
        + chatModel.getClass().getSimpleName()
        + (model == null ? "" : ", " + model)
        + "]";
  }

  /** Settings of a {@link SpringAiModelProvider}. */
  public static final class Builder {
    private final ChatModel chatModel;
    private String model;
    private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;

    private Builder(ChatModel chatModel) {
      this.chatModel = Objects.requireNonNull(chatModel, "chatModel");
    }

    /**
     * How long the model may send nothing, before its first response or between two, before the
     * call fails as a transient {@code model_timeout} (default 5 minutes). The model activity's
     * start-to-close timeout bounds the whole call in any case.
     */
    public Builder setIdleTimeout(Duration idleTimeout) {
      Objects.requireNonNull(idleTimeout, "idleTimeout");
      if (idleTimeout.isZero() || idleTimeout.isNegative()) {
        throw new IllegalArgumentException("idleTimeout must be positive, got " + idleTimeout);
      }
      this.idleTimeout = idleTimeout;
      return this;
    }

    /**
     * The model name sent on every request, for every agent this provider serves. Without it the
     * chat model's own default options name the model, and the agents' {@code model} is not sent.
     */
    public Builder setModel(String model) {
      Objects.requireNonNull(model, "model");
      if (model.isBlank()) {
        throw new IllegalArgumentException("The model name must not be blank.");
      }
      this.model = model.strip();
      return this;
    }

    /** The provider. */
    public SpringAiModelProvider build() {
      return new SpringAiModelProvider(this);
    }
  }
}
