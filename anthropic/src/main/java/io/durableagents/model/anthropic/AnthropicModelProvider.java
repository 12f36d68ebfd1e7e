package io.durableagents.model.anthropic;

import com.anthropic.client.AnthropicClientAsync;
import com.anthropic.client.okhttp.AnthropicOkHttpClientAsync;
import com.anthropic.core.Timeout;
import com.anthropic.core.http.AsyncStreamResponse;
import com.anthropic.errors.AnthropicException;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.model.ModelEventQueue;
import io.durableagents.model.ModelException;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ModelResponse;
import io.durableagents.model.ModelStream;
import io.durableagents.workflow.FailureTypes;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A model provider for Anthropic's Messages API (Claude), built on Anthropic's Java SDK. Every call
 * is one streaming request; each text and thinking delta goes to the {@link ModelStream} as it
 * arrives, so the activity heartbeats and the worker's delta listeners see the answer being
 * written.
 *
 * <pre>{@code
 * ModelProvider claude = AnthropicModelProvider.newBuilder()
 *     .setApiKey(System.getenv("ANTHROPIC_API_KEY"))
 *     .setModel("claude-sonnet-4-5")   // omit to use each agent's own model name
 *     .setMaxTokens(8192)              // default 4096
 *     .build();
 * AgentsPlugin plugin = new AgentsPlugin(AgentsPluginOptions.newBuilder()
 *     .addAgent(concierge).setModelProvider(claude).setStore(store).build());
 * }</pre>
 *
 * <p>Failures: HTTP 429 (after its {@code Retry-After}), 408, 5xx and 529 (overloaded), connection
 * errors and timeouts are transient; any other refusal is {@code model_request_invalid} with the
 * API's error message. An {@code error} event in the stream is transient when its type is {@code
 * overloaded_error}, {@code api_error} or {@code rate_limit_error}, permanent for {@code
 * invalid_request_error}. A stream that ends without {@code message_stop} is {@code
 * incomplete_response}, and none of its text or tool calls is used. The SDK's own retries are off:
 * the model activity's retry policy retries.
 *
 * <p>A cancel reported by the {@link ModelStream} closes the SDK's stream at once, which drops the
 * connection. Thread-safe: one instance (one SDK client) serves every turn of a worker.
 */
public final class AnthropicModelProvider implements ModelProvider {
  /** The default base URL: Anthropic's public API. */
  public static final String DEFAULT_BASE_URL = "https://api.anthropic.com";

  /**
   * Default for {@link Builder#setMaxTokens}: the API requires a limit, and every Claude model
   * accepts this one.
   */
  public static final long DEFAULT_MAX_TOKENS = 4096;

  /** Default for {@link Builder#setIdleTimeout}. */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(5);

  private final URI baseUrl;
  private final String model;
  private final long maxTokens;
  private final Duration idleTimeout;
  private final AnthropicClientAsync client;
  private final ObjectMapper mapper = new ObjectMapper();

  private AnthropicModelProvider(Builder builder) {
    this.baseUrl = builder.baseUrl;
    this.model = builder.model;
    this.maxTokens = builder.maxTokens;
    this.idleTimeout = builder.idleTimeout;
    AnthropicOkHttpClientAsync.Builder sdk = AnthropicOkHttpClientAsync.builder();
    if (builder.apiKey != null) {
      // The Messages API's documented key header; given, the SDK adds no bearer token of its own.
      sdk.apiKey(builder.apiKey).putHeader("X-Api-Key", builder.apiKey);
    }
    this.client =
        sdk.baseUrl(builder.baseUrl.toString())
            // Temporal's activity retry policy retries, after the server's Retry-After.
            .maxRetries(0)
            .timeout(
                Timeout.builder()
                    .connect(builder.connectTimeout)
                    // The idle timeout is the event queue's; the socket's is only a backstop.
                    .read(builder.idleTimeout.plusSeconds(30))
                    .write(builder.connectTimeout.plusSeconds(50))
                    // The model activity's start-to-close timeout bounds the whole call.
                    .request(Duration.ofDays(1))
                    .build())
            .build();
  }

  /** A builder for a provider of Anthropic's public API, until told otherwise. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * The provider {@code --model anthropic:MODEL} configures: base URL from {@code
   * ANTHROPIC_BASE_URL} (default {@value #DEFAULT_BASE_URL}), key from {@code ANTHROPIC_API_KEY},
   * which Anthropic's own API requires.
   *
   * @param model the model name every agent served by this provider uses
   * @throws IllegalArgumentException for an empty model name, a malformed base URL, or Anthropic's
   *     API without a key
   */
  public static AnthropicModelProvider fromEnvironment(String model, Map<String, String> env) {
    if (model == null || model.isBlank()) {
      throw new IllegalArgumentException(
          "anthropic:MODEL needs a model name, e.g. anthropic:claude-sonnet-4-5.");
    }
    Builder builder = newBuilder().setModel(model.strip());
    String baseUrl = env.get("ANTHROPIC_BASE_URL");
    if (baseUrl != null && !baseUrl.isBlank()) {
      builder.setBaseUrl(baseUrl.strip());
    }
    String key = env.get("ANTHROPIC_API_KEY");
    if (key != null && !key.isBlank()) {
      builder.setApiKey(key.strip());
    } else if ("api.anthropic.com".equalsIgnoreCase(builder.baseUrl.getHost())) {
      throw new IllegalArgumentException(
          "anthropic:"
              + model.strip()
              + " needs ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL for a server that needs no key).");
    }
    return builder.build();
  }

  /** The API's base URL; requests go to {@code BASE/v1/messages}. */
  public URI baseUrl() {
    return baseUrl;
  }

  /** The model name sent for every agent, or null when each agent's own model name is sent. */
  public String model() {
    return model;
  }

  /** The {@code max_tokens} sent with every request. */
  public long maxTokens() {
    return maxTokens;
  }

  @Override
  public ModelResponse generate(ModelRequest request, ModelStream stream) {
    String modelName = model != null ? model : request.model();
    if (modelName == null || modelName.isBlank()) {
      throw ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID,
          "Agent '" + request.agent() + "' names no model and the provider sets none.");
    }
    MessageCreateParams params = MessagesRequest.params(request, modelName, maxTokens, mapper);
    ModelEventQueue<RawMessageStreamEvent> events = new ModelEventQueue<>(idleTimeout);
    MessagesStreamAccumulator answer = new MessagesStreamAccumulator(mapper);
    AsyncStreamResponse<RawMessageStreamEvent> response = null;
    try {
      response = client.messages().createStreaming(params);
      response.subscribe(
          new AsyncStreamResponse.Handler<RawMessageStreamEvent>() {
            @Override
            public void onNext(RawMessageStreamEvent event) {
              events.put(event);
            }

            @Override
            public void onComplete(Optional<Throwable> error) {
              if (error.isPresent()) {
                events.fail(new SdkFailure(error.get()));
              } else {
                events.complete();
              }
            }
          });
      // The stream's own calls (text, alive) throw on a cancel: that passes through unchanged.
      for (RawMessageStreamEvent event = events.take(stream);
          event != null;
          event = events.take(stream)) {
        answer.on(event, stream);
        if (answer.done()) {
          break;
        }
      }
      return answer.finish();
    } catch (SdkFailure e) {
      throw AnthropicErrors.map(e.getCause()).withPartialText(answer.text());
    } catch (ModelException e) {
      // The run's history keeps what was streamed on the failed step.
      throw e.withPartialText(answer.text());
    } catch (AnthropicException e) {
      // Refused by the SDK before any request was made.
      throw AnthropicErrors.map(e);
    } finally {
      if (response != null) {
        response.close();
      }
    }
  }

  @Override
  public String toString() {
    return "AnthropicModelProvider["
        + baseUrl.getHost()
        + (model == null ? "" : ", " + model)
        + "]";
  }

  /** A failure the SDK reported on its own thread, carried to the activity's thread. */
  private static final class SdkFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SdkFailure(Throwable cause) {
      super(cause);
    }
  }

  /** Settings of an {@link AnthropicModelProvider}. */
  public static final class Builder {
    private URI baseUrl = url(DEFAULT_BASE_URL);
    private String apiKey;
    private String model;
    private long maxTokens = DEFAULT_MAX_TOKENS;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;

    private Builder() {}

    /**
     * The API's base URL, {@value AnthropicModelProvider#DEFAULT_BASE_URL} or a proxy or gateway
     * that speaks the Messages API; requests go to {@code BASE/v1/messages}.
     */
    public Builder setBaseUrl(String baseUrl) {
      this.baseUrl = url(Objects.requireNonNull(baseUrl, "baseUrl"));
      return this;
    }

    /** Sent as the {@code x-api-key} header. */
    public Builder setApiKey(String apiKey) {
      this.apiKey = Objects.requireNonNull(apiKey, "apiKey");
      return this;
    }

    /**
     * The model name sent for every agent this provider serves. Without it each agent's own {@code
     * model} is sent.
     */
    public Builder setModel(String model) {
      this.model = Objects.requireNonNull(model, "model");
      return this;
    }

    /**
     * The most tokens one answer may have ({@code max_tokens}, which the API requires; default
     * {@value AnthropicModelProvider#DEFAULT_MAX_TOKENS}). An answer that reaches it ends with the
     * finish reason {@code length}.
     */
    public Builder setMaxTokens(long maxTokens) {
      if (maxTokens < 1) {
        throw new IllegalArgumentException("maxTokens must be at least 1, got " + maxTokens);
      }
      this.maxTokens = maxTokens;
      return this;
    }

    /** How long to wait for a connection (default 10 s). */
    public Builder setConnectTimeout(Duration connectTimeout) {
      this.connectTimeout = positive(connectTimeout, "connectTimeout");
      return this;
    }

    /**
     * How long the API may send nothing, before its first event or between two, before the call
     * fails as a transient {@code model_timeout} (default 5 minutes; the API's {@code ping} events
     * do not count, the SDK drops them). The model activity's start-to-close timeout bounds the
     * whole call in any case.
     */
    public Builder setIdleTimeout(Duration idleTimeout) {
      this.idleTimeout = positive(idleTimeout, "idleTimeout");
      return this;
    }

    /** The provider; refuses a blank model name. */
    public AnthropicModelProvider build() {
      if (model != null && model.isBlank()) {
        throw new IllegalStateException("The model name must not be blank.");
      }
      return new AnthropicModelProvider(this);
    }

    private static Duration positive(Duration value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException(name + " must be positive, got " + value);
      }
      return value;
    }

    private static URI url(String baseUrl) {
      String base = baseUrl.strip();
      while (base.endsWith("/")) {
        base = base.substring(0, base.length() - 1);
      }
      URI uri;
      try {
        uri = URI.create(base);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "Not a URL: '" + baseUrl + "' (" + e.getMessage() + ")", e);
      }
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if ((!scheme.equals("http") && !scheme.equals("https")) || uri.getHost() == null) {
        throw new IllegalArgumentException(
            "The Anthropic base URL must be an http or https URL such as "
                + DEFAULT_BASE_URL
                + ", got '"
                + baseUrl
                + "'");
      }
      return uri;
    }
  }
}
