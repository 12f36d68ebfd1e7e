package io.durableagents.model.langchain4j;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.exception.AuthenticationException;
import dev.langchain4j.exception.ContentFilteredException;
import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.InternalServerException;
import dev.langchain4j.exception.ModelNotFoundException;
import dev.langchain4j.exception.NonRetriableException;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.exception.RetriableException;
import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.exception.UnresolvedModelServerException;
import dev.langchain4j.exception.UnsupportedFeatureException;
import io.durableagents.model.ModelException;
import io.durableagents.workflow.FailureTypes;
import java.io.IOException;
import java.net.http.HttpTimeoutException;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Maps what a LangChain4j model fails with to a {@link ModelException}: what is retried and what is
 * not.
 *
 * <p>LangChain4j's exceptions carry an HTTP status ({@link HttpException}, the cause of the
 * specific ones) and the response body, but not the response headers: a server's {@code
 * Retry-After} cannot be read, so a rate-limited turn waits for the activity's retry backoff.
 */
final class LangChain4jErrors {
  private static final int MAX_MESSAGE = 1000;

  private LangChain4jErrors() {}

  static ModelException classify(Throwable error, ObjectMapper mapper) {
    Throwable top = error;
    while ((top instanceof CompletionException || top instanceof ExecutionException)
        && top.getCause() != null) {
      top = top.getCause();
    }
    if (top instanceof ModelException model) {
      return model;
    }
    HttpException http = find(top, HttpException.class);
    if (top instanceof ContentFilteredException) {
      return ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID,
          "The model's content filter refused the request"
              + (http == null ? "" : " (HTTP " + http.statusCode() + ")")
              + ": "
              + detail(http == null ? top.getMessage() : http.getMessage(), mapper));
    }
    if (http != null) {
      return ModelException.forHttpStatus(
          http.statusCode(), detail(http.getMessage(), mapper), null);
    }
    String detail = detail(top.getMessage(), mapper);
    if (top instanceof RateLimitException) {
      return ModelException.transientFailure(
          FailureTypes.MODEL_RATE_LIMITED, "The model is rate limiting: " + detail, null);
    }
    if (top instanceof TimeoutException || find(top, HttpTimeoutException.class) != null) {
      return ModelException.transientFailure(
          FailureTypes.MODEL_TIMEOUT, "The model did not answer in time: " + detail, null);
    }
    if (top instanceof InternalServerException) {
      return ModelException.transientFailure(
          FailureTypes.MODEL_UNAVAILABLE, "The model server failed: " + detail, null);
    }
    if (top instanceof UnresolvedModelServerException) {
      return ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID,
          "The model server's address does not resolve (check the base URL): " + detail);
    }
    if (top instanceof UnsupportedFeatureException) {
      return ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID,
          "The model does not support what the turn asks for: " + detail);
    }
    if (top instanceof AuthenticationException || top instanceof ModelNotFoundException) {
      return ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID, "The model refused the request: " + detail);
    }
    JsonProcessingException malformed = find(top, JsonProcessingException.class);
    if (malformed != null) {
      // Before IOException, which JsonProcessingException is.
      return ModelException.permanent(
          FailureTypes.MODEL_RESPONSE_INVALID,
          "The model server sent an event that is not valid JSON: "
              + shorten(malformed.getOriginalMessage()));
    }
    IOException io = find(top, IOException.class);
    if (io != null) {
      return ModelException.transientFailure(
          FailureTypes.MODEL_UNAVAILABLE,
          "The connection to the model server failed: "
              + (io.getMessage() == null
                  ? io.getClass().getSimpleName()
                  : shorten(io.getMessage())),
          null);
    }
    JsonNode errorEvent = errorObject(top.getMessage(), mapper);
    if (errorEvent != null) {
      return midStream(errorEvent, detail);
    }
    if (top instanceof RetriableException) {
      return ModelException.transientFailure(
          FailureTypes.MODEL_UNAVAILABLE, "The model failed: " + detail, null);
    }
    if (top instanceof NonRetriableException) {
      return ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID, "The model refused the request: " + detail);
    }
    return ModelException.permanent(
        FailureTypes.MODEL_ERROR,
        "The LangChain4j model failed: " + top.getClass().getName() + ": " + detail);
  }

  /**
   * An error event the server sent after its 200 status (OpenAI's {@code event: error}, which
   * LangChain4j hands on as an exception whose message is the event's data), by its type or code:
   * rate limits transient, refused requests permanent, anything else (overloaded, server error)
   * transient.
   */
  private static ModelException midStream(JsonNode error, String detail) {
    String kind =
        (error.path("type").asText("") + " " + error.path("code").asText(""))
            .toLowerCase(Locale.ROOT);
    if (kind.contains("rate_limit") || kind.contains("too_many")) {
      return ModelException.transientFailure(
          FailureTypes.MODEL_RATE_LIMITED,
          "The model is rate limiting mid-stream: " + detail,
          null);
    }
    if (kind.contains("invalid_request")
        || kind.contains("authentication")
        || kind.contains("permission")
        || kind.contains("not_found")) {
      return ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID,
          "The model refused the request mid-stream: " + detail);
    }
    return ModelException.transientFailure(
        FailureTypes.MODEL_UNAVAILABLE, "The model server failed mid-stream: " + detail, null);
  }

  /** The {@code error} object of an error body or event, or null when the text is none. */
  private static JsonNode errorObject(String text, ObjectMapper mapper) {
    if (text == null || !text.strip().startsWith("{")) {
      return null;
    }
    try {
      JsonNode node = mapper.readTree(text);
      JsonNode error = node == null ? null : node.get("error");
      return error != null && error.isObject() ? error : null;
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  /**
   * The server's own message from an error body ({@code error.message}, with its type and code),
   * else the text itself, shortened.
   */
  static String detail(String text, ObjectMapper mapper) {
    if (text == null || text.isBlank()) {
      return "(no error message)";
    }
    JsonNode error = errorObject(text, mapper);
    if (error == null) {
      return shorten(text.strip());
    }
    String message = error.path("message").asText("");
    StringBuilder out = new StringBuilder(message.isEmpty() ? error.toString() : message);
    String type = error.path("type").asText("");
    String code = error.path("code").asText("");
    if (!type.isEmpty() || !code.isEmpty()) {
      out.append(" (").append(type);
      if (!code.isEmpty() && !code.equals(type)) {
        out.append(type.isEmpty() ? "" : ", ").append(code);
      }
      out.append(')');
    }
    return shorten(out.toString());
  }

  private static <T extends Throwable> T find(Throwable error, Class<T> type) {
    Throwable t = error;
    // Bounded: a cause chain may loop.
    for (int depth = 0; t != null && depth < 32; depth++, t = t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }

  private static String shorten(String text) {
    return text.length() <= MAX_MESSAGE ? text : text.substring(0, MAX_MESSAGE) + "...";
  }
}
