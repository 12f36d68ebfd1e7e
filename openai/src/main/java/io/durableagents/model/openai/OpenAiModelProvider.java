package io.durableagents.model.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.model.ModelException;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ModelResponse;
import io.durableagents.model.ModelStream;
import io.durableagents.model.RetryAfter;
import io.durableagents.workflow.FailureTypes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A model provider for any server that speaks OpenAI's Chat Completions API with streaming (OpenAI
 * itself, and the many servers compatible with it). Every call is one streaming request ({@code
 * stream: true}, {@code stream_options.include_usage: true}); each text and reasoning delta goes to
 * the {@link ModelStream} as it arrives, so the activity heartbeats and the worker's delta
 * listeners see the answer being written.
 *
 * <pre>{@code
 * ModelProvider openai = OpenAiModelProvider.newBuilder()
 *     .setApiKey(System.getenv("OPENAI_API_KEY"))
 *     .setModel("gpt-4o-mini")       // omit to use each agent's own model name
 *     .build();
 * AgentsPlugin plugin = new AgentsPlugin(AgentsPluginOptions.newBuilder()
 *     .addAgent(concierge).setModelProvider(openai).setStore(store).build());
 * }</pre>
 *
 * <p>Failures: HTTP 429, 408 and 5xx, connection errors and timeouts are transient ({@link
 * ModelException#transientFailure}, after the server's {@code Retry-After} when it sent one); any
 * other refusal is {@code model_request_invalid} with the server's error message; a stream that
 * ends without a finish reason is {@code incomplete_response}, and none of its text or tool calls
 * is used. A failure after text was streamed carries that text ({@link
 * ModelException#partialText()}), which the run's failed step keeps.
 *
 * <p>It uses the JDK's {@link HttpClient} and Jackson only, so adding it pulls no SDK into a team's
 * worker. Thread-safe: one instance serves every turn of a worker.
 */
public final class OpenAiModelProvider implements ModelProvider {
  /** The default base URL: OpenAI's public API. */
  public static final String DEFAULT_BASE_URL = "https://api.openai.com/v1";

  /** Default for {@link Builder#setIdleTimeout}. */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(5);

  private static final int MAX_ERROR_BODY = 64 * 1024;

  private final URI endpoint;
  private final String apiKey;
  private final String model;
  private final Duration idleTimeout;
  private final HttpClient http;
  private final ObjectMapper mapper =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private OpenAiModelProvider(Builder builder) {
    this.endpoint = builder.endpoint;
    this.apiKey = builder.apiKey;
    this.model = builder.model;
    this.idleTimeout = builder.idleTimeout;
    this.http =
        builder.httpClient != null
            ? builder.httpClient
            : HttpClient.newBuilder()
                .connectTimeout(builder.connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
  }

  /** A builder for a provider of OpenAI's public API, until told otherwise. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * The provider {@code --model openai:MODEL} configures: base URL from {@code OPENAI_BASE_URL}
   * (default {@value #DEFAULT_BASE_URL}), key from {@code OPENAI_API_KEY}, which OpenAI's own API
   * requires and a local server usually does not.
   *
   * @param model the model name every agent served by this provider uses
   * @throws IllegalArgumentException for an empty model name, a malformed base URL, or OpenAI's API
   *     without a key
   */
  public static OpenAiModelProvider fromEnvironment(String model, Map<String, String> env) {
    if (model == null || model.isBlank()) {
      throw new IllegalArgumentException(
          "openai:MODEL needs a model name, e.g. openai:gpt-4o-mini.");
    }
    String baseUrl = env.get("OPENAI_BASE_URL");
    Builder builder = newBuilder().setModel(model.strip());
    if (baseUrl != null && !baseUrl.isBlank()) {
      builder.setBaseUrl(baseUrl.strip());
    }
    String key = env.get("OPENAI_API_KEY");
    if (key != null && !key.isBlank()) {
      builder.setApiKey(key.strip());
    } else if ("api.openai.com".equalsIgnoreCase(builder.endpoint.getHost())) {
      throw new IllegalArgumentException(
          "openai:"
              + model.strip()
              + " needs OPENAI_API_KEY (or OPENAI_BASE_URL for a server that needs no key).");
    }
    return builder.build();
  }

  /** The {@code /chat/completions} URL requests go to. */
  public URI endpoint() {
    return endpoint;
  }

  /** The model name sent for every agent, or null when each agent's own model name is sent. */
  public String model() {
    return model;
  }

  @Override
  public ModelResponse generate(ModelRequest request, ModelStream stream) {
    String modelName = model != null ? model : request.model();
    if (modelName == null || modelName.isBlank()) {
      throw ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID,
          "Agent '" + request.agent() + "' names no model and the provider sets none.");
    }
    HttpRequest.Builder http =
        HttpRequest.newBuilder(endpoint)
            .header("Content-Type", "application/json")
            .header("Accept", "text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body(request, modelName)));
    if ("http".equalsIgnoreCase(endpoint.getScheme())) {
      http.version(HttpClient.Version.HTTP_1_1); // no h2c upgrade dance with local servers
    }
    if (apiKey != null) {
      http.header("Authorization", "Bearer " + apiKey);
    }
    try (StreamingExchange exchange = new StreamingExchange(endpoint, idleTimeout)) {
      exchange.start(this.http, http.build());
      StreamingExchange.Head head = exchange.head(stream);
      if (head.status() / 100 != 2) {
        String body = exchange.rest(stream, MAX_ERROR_BODY);
        throw ChatCompletionsErrors.forStatus(
            head.status(),
            body,
            RetryAfter.from(head.headers()::firstValue, Instant.now()),
            mapper);
      }
      String contentType =
          head.headers().firstValue("Content-Type").orElse("").toLowerCase(Locale.ROOT);
      if (!contentType.isEmpty() && !contentType.startsWith("text/event-stream")) {
        String body = exchange.rest(stream, MAX_ERROR_BODY);
        throw ModelException.permanent(
            FailureTypes.MODEL_RESPONSE_INVALID,
            "The model server answered "
                + contentType
                + " instead of an event stream: "
                + ChatCompletionsErrors.detail(body, mapper));
      }
      ChatCompletionsAccumulator answer = new ChatCompletionsAccumulator(mapper);
      SseDecoder events = new SseDecoder(data -> answer.data(data, stream, false));
      try {
        while (!answer.done()) {
          String line = exchange.line(stream);
          if (line == null) {
            String last = events.drain();
            if (last != null) {
              answer.data(last, stream, true);
            }
            break;
          }
          events.line(line);
        }
        return answer.finish();
      } catch (ModelException e) {
        // The run's history keeps what was streamed on the failed step.
        throw e.withPartialText(answer.text());
      }
    }
  }

  private byte[] body(ModelRequest request, String modelName) {
    try {
      return mapper.writeValueAsBytes(ChatCompletionsRequest.body(request, modelName, mapper));
    } catch (JsonProcessingException e) {
      throw ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID, "Cannot serialize the request: " + e.getMessage());
    }
  }

  @Override
  public String toString() {
    return "OpenAiModelProvider[" + endpoint.getHost() + (model == null ? "" : ", " + model) + "]";
  }

  /** Settings of an {@link OpenAiModelProvider}. */
  public static final class Builder {
    private URI endpoint = chatCompletions(DEFAULT_BASE_URL);
    private String apiKey;
    private String model;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
    private HttpClient httpClient;

    private Builder() {}

    /**
     * The API's base URL, such as {@value OpenAiModelProvider#DEFAULT_BASE_URL} or {@code
     * http://127.0.0.1:11434/v1}; requests go to {@code BASE/chat/completions}.
     */
    public Builder setBaseUrl(String baseUrl) {
      this.endpoint = chatCompletions(Objects.requireNonNull(baseUrl, "baseUrl"));
      return this;
    }

    /** Sent as {@code Authorization: Bearer KEY}; without one no Authorization header is sent. */
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

    /** How long to wait for a connection (default 10 s). */
    public Builder setConnectTimeout(Duration connectTimeout) {
      this.connectTimeout = positive(connectTimeout, "connectTimeout");
      return this;
    }

    /**
     * How long the server may send nothing, before its first byte or between two chunks, before the
     * call fails as a transient {@code model_timeout} (default 5 minutes). The model activity's
     * start-to-close timeout bounds the whole call in any case.
     */
    public Builder setIdleTimeout(Duration idleTimeout) {
      this.idleTimeout = positive(idleTimeout, "idleTimeout");
      return this;
    }

    /** A client of your own (proxy, TLS settings); {@link #setConnectTimeout} is then ignored. */
    public Builder setHttpClient(HttpClient httpClient) {
      this.httpClient = Objects.requireNonNull(httpClient, "httpClient");
      return this;
    }

    /** The provider; refuses a blank model name. */
    public OpenAiModelProvider build() {
      if (model != null && model.isBlank()) {
        throw new IllegalStateException("The model name must not be blank.");
      }
      return new OpenAiModelProvider(this);
    }

    private static Duration positive(Duration value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException(name + " must be positive, got " + value);
      }
      return value;
    }

    private static URI chatCompletions(String baseUrl) {
      String base = baseUrl.strip();
      while (base.endsWith("/")) {
        base = base.substring(0, base.length() - 1);
      }
      URI uri;
      try {
        uri = URI.create(base + "/chat/completions");
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "Not a URL: '" + baseUrl + "' (" + e.getMessage() + ")", e);
      }
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if ((!scheme.equals("http") && !scheme.equals("https")) || uri.getHost() == null) {
        throw new IllegalArgumentException(
            "The OpenAI base URL must be an http or https URL such as "
                + DEFAULT_BASE_URL
                + ", got '"
                + baseUrl
                + "'");
      }
      return uri;
    }
  }
}
