package io.durableagents.model.langchain4j;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import io.durableagents.model.ModelEventQueue;
import io.durableagents.model.ModelException;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ModelResponse;
import io.durableagents.model.ModelStream;
import io.durableagents.workflow.FailureTypes;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Any LangChain4j chat model as a model provider: a {@link StreamingChatModel} (text and thinking
 * go to the {@link ModelStream} as they arrive) or a blocking {@link ChatModel} (the whole answer
 * at once; the turn heartbeats while it waits).
 *
 * <pre>{@code
 * StreamingChatModel model = OpenAiStreamingChatModel.builder()
 *     .apiKey(System.getenv("OPENAI_API_KEY"))
 *     .modelName("gpt-4o-mini")
 *     .maxRetries(0)               // Temporal retries the model activity
 *     .build();
 * ModelProvider provider = LangChain4jModelProvider.newBuilder(model).build();
 * }</pre>
 *
 * <p>The model is used as configured: its model name, temperature and other parameters are its own,
 * and the agent's {@code model()} is not sent (give agents different models with a provider each,
 * {@code Agent.Builder.setModelProvider}). Turn the model's own retries off ({@code maxRetries(0)}
 * where it has them): the model activity's retry policy retries transient failures.
 *
 * <p>Failures: rate limits, 5xx and 408, broken connections and timeouts are transient; other
 * refusals are {@code model_request_invalid} with the server's message; a stream that ends without
 * a finish reason is {@code incomplete_response} and none of it is used. LangChain4j's exceptions
 * do not carry the response headers, so a {@code Retry-After} cannot be honoured: a rate-limited
 * turn waits the activity's retry backoff.
 *
 * <p>Thread-safe, if the model is: one instance serves every turn of a worker.
 */
public final class LangChain4jModelProvider implements ModelProvider {
  /** Default for {@link Builder#setIdleTimeout}. */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(5);

  private static final AtomicInteger THREADS = new AtomicInteger();

  private final StreamingChatModel streamingModel;
  private final ChatModel chatModel;
  private final Duration idleTimeout;
  private final ExecutorService calls;
  private final ObjectMapper mapper =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private LangChain4jModelProvider(Builder builder) {
    this.streamingModel = builder.streamingModel;
    this.chatModel = builder.chatModel;
    this.idleTimeout = builder.idleTimeout;
    this.calls = Executors.newCachedThreadPool(daemonThreads());
  }

  /** A builder for a provider of a streaming model. */
  public static Builder newBuilder(StreamingChatModel model) {
    return new Builder(Objects.requireNonNull(model, "model"), null);
  }

  /** A builder for a provider of a blocking model. */
  public static Builder newBuilder(ChatModel model) {
    return new Builder(null, Objects.requireNonNull(model, "model"));
  }

  @Override
  public ModelResponse generate(ModelRequest request, ModelStream stream) {
    ChatRequest chatRequest;
    try {
      chatRequest = ChatRequests.from(request, mapper);
    } catch (IllegalArgumentException e) {
      // LangChain4j's own checks of a message (a tool result without its call's id, ...).
      throw ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID,
          "The turn cannot be given to LangChain4j: " + e.getMessage());
    }
    ModelEventQueue<ModelCall.Event> events = new ModelEventQueue<>(idleTimeout);
    boolean streamed = streamingModel != null;
    ModelCall call =
        streamed
            ? ModelCall.streaming(streamingModel, chatRequest, events, calls, mapper)
            : ModelCall.blocking(chatModel, chatRequest, events, calls, mapper);
    StringBuilder text = new StringBuilder();
    boolean thought = false;
    boolean answered = false;
    try {
      for (ModelCall.Event event = events.take(stream);
          event != null;
          event = events.take(stream)) {
        if (event instanceof ModelCall.Text delta) {
          text.append(delta.text());
          stream.text(delta.text());
        } else if (event instanceof ModelCall.Thinking delta) {
          thought = true;
          stream.reasoning(delta.text());
        } else if (event instanceof ModelCall.Done done) {
          answered = true;
          var message = done.response().aiMessage();
          // A model that streams nothing (or a blocking one) hands its text over once, whole.
          if (!thought && message != null && notEmpty(message.thinking())) {
            stream.reasoning(message.thinking());
          }
          if (text.length() == 0 && message != null && notEmpty(message.text())) {
            text.append(message.text());
            stream.text(message.text());
          }
          return ChatResponses.from(done.response(), text.toString(), streamed, mapper);
        }
      }
      throw ModelException.permanent(
          FailureTypes.INCOMPLETE_RESPONSE, "The model ended its stream without a response.");
    } catch (ModelException e) {
      // The run's history keeps what was streamed on the failed step.
      throw e.withPartialText(text.toString());
    } finally {
      if (!answered) {
        call.abandon();
      }
    }
  }

  private static boolean notEmpty(String text) {
    return text != null && !text.isEmpty();
  }

  private static ThreadFactory daemonThreads() {
    return runnable -> {
      Thread thread = new Thread(runnable, "langchain4j-model-call-" + THREADS.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  @Override
  public String toString() {
    Object model = streamingModel != null ? streamingModel : chatModel;
    return "LangChain4jModelProvider[" + model.getClass().getSimpleName() + "]";
  }

  /** Settings of a {@link LangChain4jModelProvider}. */
  public static final class Builder {
    private final StreamingChatModel streamingModel;
    private final ChatModel chatModel;
    private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;

    private Builder(StreamingChatModel streamingModel, ChatModel chatModel) {
      this.streamingModel = streamingModel;
      this.chatModel = chatModel;
    }

    /**
     * How long the model may send nothing before the turn fails as a transient {@code
     * model_timeout} (default 5 minutes): before its first token or between two, and for a blocking
     * model the whole call. The model activity's start-to-close timeout bounds the whole call in
     * any case.
     */
    public Builder setIdleTimeout(Duration idleTimeout) {
      Objects.requireNonNull(idleTimeout, "idleTimeout");
      if (idleTimeout.isZero() || idleTimeout.isNegative()) {
        throw new IllegalArgumentException("idleTimeout must be positive, got " + idleTimeout);
      }
      this.idleTimeout = idleTimeout;
      return this;
    }

    /** The provider. */
    public LangChain4jModelProvider build() {
      return new LangChain4jModelProvider(this);
    }
  }
}
