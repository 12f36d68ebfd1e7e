package io.durableagents.model.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.model.ModelException;
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
    return ModelException.forHttpStatus(status, detail(body, mapper), retryAfter);
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
