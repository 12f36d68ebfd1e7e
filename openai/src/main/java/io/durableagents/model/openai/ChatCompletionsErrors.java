package io.durableagents.model.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.model.ModelException;
import io.durableagents.workflow.FailureTypes;
import java.io.IOException;
import java.time.Duration;

/** Maps a refused request to a {@link ModelException}: what is retryable and what is not. */
final class ChatCompletionsErrors {
  private static final int MAX_MESSAGE = 1000;

  private ChatCompletionsErrors() {}

  /**
   * 429, 5xx and 408 (the server timed out waiting for us) are transient and honour {@code
   * Retry-After}; any other status is a request no retry can fix.
   */
  static ModelException forStatus(
      int status, String body, Duration retryAfter, ObjectMapper mapper) {
    String detail = detail(body, mapper);
    if (status == 429) {
      return ModelException.transientFailure(
          FailureTypes.MODEL_RATE_LIMITED,
          "The model server is rate limiting (HTTP 429): " + detail,
          retryAfter);
    }
    if (status >= 500 || status == 408) {
      return ModelException.transientFailure(
          FailureTypes.MODEL_UNAVAILABLE,
          "The model server failed (HTTP " + status + "): " + detail,
          retryAfter);
    }
    return ModelException.permanent(
        FailureTypes.MODEL_REQUEST_INVALID,
        "The model server refused the request (HTTP " + status + "): " + detail);
  }

  /** The server's own error message from an OpenAI error body, else the body itself (shortened). */
  static String detail(String body, ObjectMapper mapper) {
    if (body == null || body.isBlank()) {
      return "(no error message)";
    }
    try {
      JsonNode node = mapper.readTree(body);
      if (node != null && node.isObject()) {
        String message = message(node);
        if (message != null) {
          return shorten(message);
        }
      }
    } catch (IOException e) {
      // not JSON: the body as text
    }
    return shorten(body.strip());
  }

  /**
   * {@code error.message} (with {@code error.type} / {@code error.code} when given), or a bare
   * {@code error} / {@code message} string; null when the object has none of them.
   */
  static String message(JsonNode node) {
    JsonNode error = node.get("error");
    if (error != null && error.isObject()) {
      String message = error.path("message").asText("");
      StringBuilder out = new StringBuilder(message.isEmpty() ? error.toString() : message);
      String type = error.path("type").asText("");
      String code = error.path("code").asText("");
      if (!type.isEmpty() || !code.isEmpty()) {
        out.append(" (");
        out.append(type);
        if (!code.isEmpty() && !code.equals(type)) {
          out.append(type.isEmpty() ? "" : ", ").append(code);
        }
        out.append(')');
      }
      return out.toString();
    }
    if (error != null && error.isTextual()) {
      return error.textValue();
    }
    JsonNode message = node.get("message");
    if (message != null && message.isTextual()) {
      return message.textValue();
    }
    return null;
  }

  private static String shorten(String text) {
    return text.length() <= MAX_MESSAGE ? text : text.substring(0, MAX_MESSAGE) + "...";
  }
}
