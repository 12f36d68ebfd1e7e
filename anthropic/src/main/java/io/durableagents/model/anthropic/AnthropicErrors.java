package io.durableagents.model.anthropic;

import com.anthropic.core.JsonValue;
import com.anthropic.core.http.Headers;
import com.anthropic.errors.AnthropicException;
import com.anthropic.errors.AnthropicInvalidDataException;
import com.anthropic.errors.AnthropicIoException;
import com.anthropic.errors.AnthropicServiceException;
import com.anthropic.errors.SseException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.durableagents.model.ModelException;
import io.durableagents.model.RetryAfter;
import io.durableagents.workflow.FailureTypes;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Maps what the SDK throws to a {@link ModelException}: what is retryable and what is not. */
final class AnthropicErrors {
  private static final int MAX_MESSAGE = 1000;

  /** Error types of a mid-stream {@code error} event that no retry can fix. */
  private static final Set<String> PERMANENT_TYPES =
      Set.of(
          "invalid_request_error",
          "authentication_error",
          "permission_error",
          "not_found_error",
          "request_too_large",
          "billing_error");

  private AnthropicErrors() {}

  /**
   * The failure an SDK error means: an HTTP refusal by its status ({@link
   * ModelException#forHttpStatus}, with {@code Retry-After}); an {@code error} event after the 200
   * by its type (overloaded, API and rate-limit errors transient, invalid requests permanent);
   * connection failures transient; an unreadable event {@code model_response_invalid}.
   */
  static ModelException map(Throwable error) {
    Throwable cause = error;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof ModelException model) {
      return model;
    }
    if (cause instanceof SseException event) {
      return errorEvent(event);
    }
    if (cause instanceof AnthropicServiceException refused) {
      return ModelException.forHttpStatus(
          refused.statusCode(), detail(refused.body()), retryAfter(refused.headers()));
    }
    if (cause instanceof AnthropicIoException io) {
      Throwable root = io.getCause() == null ? io : io.getCause();
      if (root instanceof InterruptedIOException) {
        return ModelException.transientFailure(
            FailureTypes.MODEL_TIMEOUT, "The Anthropic API did not answer in time: " + root, null);
      }
      return ModelException.transientFailure(
          FailureTypes.MODEL_UNAVAILABLE, "Cannot reach the Anthropic API: " + root, null);
    }
    if (cause instanceof AnthropicInvalidDataException invalid) {
      return ModelException.permanent(
          FailureTypes.MODEL_RESPONSE_INVALID,
          "The Anthropic stream sent an event the SDK cannot read: " + message(invalid));
    }
    if (cause instanceof AnthropicException sdk) {
      return ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID,
          "The Anthropic SDK refused the call: " + message(sdk));
    }
    return ModelException.permanent(
        FailureTypes.MODEL_REQUEST_INVALID, "The call to the Anthropic API failed: " + cause);
  }

  private static ModelException errorEvent(SseException event) {
    JsonNode error = json(event.body()).path("error");
    String type = error.path("type").asText("");
    String detail = "The Anthropic API failed mid-stream: " + detail(event.body());
    if (type.equals("rate_limit_error")) {
      return ModelException.transientFailure(FailureTypes.MODEL_RATE_LIMITED, detail, null);
    }
    if (PERMANENT_TYPES.contains(type)) {
      return ModelException.permanent(FailureTypes.MODEL_REQUEST_INVALID, detail);
    }
    // overloaded_error, api_error, timeout_error and types added later: the server's trouble.
    return ModelException.transientFailure(FailureTypes.MODEL_UNAVAILABLE, detail, null);
  }

  /** {@code error.message (error.type)} of an Anthropic error body, else the body (shortened). */
  static String detail(JsonValue body) {
    JsonNode node = json(body);
    JsonNode error = node.path("error");
    if (error.isObject() && error.path("message").isTextual()) {
      String type = error.path("type").asText("");
      return shorten(error.path("message").textValue() + (type.isEmpty() ? "" : " (" + type + ")"));
    }
    if (node.isMissingNode() || node.isNull()) {
      return "(no error message)";
    }
    return shorten(node.isTextual() ? node.textValue() : node.toString());
  }

  private static JsonNode json(JsonValue body) {
    if (body == null) {
      return MissingNode.getInstance();
    }
    try {
      JsonNode node = body.convert(JsonNode.class);
      return node == null ? MissingNode.getInstance() : node;
    } catch (RuntimeException e) {
      return MissingNode.getInstance();
    }
  }

  /** {@code retry-after-ms} or {@code Retry-After}, header names matched case-insensitively. */
  private static Duration retryAfter(Headers headers) {
    return RetryAfter.from(name -> header(headers, name), Instant.now());
  }

  private static Optional<String> header(Headers headers, String name) {
    for (String present : headers.names()) {
      if (present.equalsIgnoreCase(name) && !headers.values(present).isEmpty()) {
        return Optional.of(headers.values(present).get(0));
      }
    }
    return Optional.empty();
  }

  private static String message(Throwable error) {
    String message = error.getMessage();
    if (error.getCause() != null && error.getCause().getMessage() != null) {
      message = message + ": " + error.getCause().getMessage();
    }
    return shorten(message == null ? error.getClass().getSimpleName() : message);
  }

  private static String shorten(String text) {
    return text.length() <= MAX_MESSAGE ? text : text.substring(0, MAX_MESSAGE) + "...";
  }
}
