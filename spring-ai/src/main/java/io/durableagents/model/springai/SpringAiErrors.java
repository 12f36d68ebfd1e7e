package io.durableagents.model.springai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.model.ModelException;
import io.durableagents.workflow.FailureTypes;
import java.io.IOException;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.util.ClassUtils;

/**
 * What a Spring AI model's failure means for the turn: which failures a retry may fix, and after
 * how long. Spring AI models report refusals in three ways, each read here:
 *
 * <ul>
 *   <li>a streaming call refused by the server: WebFlux's {@code WebClientResponseException}, with
 *       the status, the headers ({@code Retry-After}) and the body;
 *   <li>a blocking call refused by the server: Spring AI's default error handler throws {@code
 *       NonTransientAiException} (4xx, 429 included) or {@code TransientAiException} (5xx) with the
 *       message {@code "STATUS - BODY"} and no headers; a model with its own handler may throw
 *       Spring Web's {@code RestClientResponseException} ({@code HttpStatusCodeException}), with
 *       status and headers;
 *   <li>the server could not be reached or broke the connection: an {@code IOException} under
 *       Spring's {@code WebClientRequestException} or {@code ResourceAccessException}.
 * </ul>
 *
 * Each of these classes is optional: the checks for one run only when it is on the classpath.
 */
final class SpringAiErrors {
  private static final int MAX_MESSAGE = 1000;
  private static final Pattern STATUS_PREFIX = Pattern.compile("^(\\d{3}) - (.*)$", Pattern.DOTALL);
  private static final ClassLoader LOADER = SpringAiErrors.class.getClassLoader();
  private static final boolean WEBFLUX =
      ClassUtils.isPresent(
          "org.springframework.web.reactive.function.client.WebClientResponseException", LOADER);
  private static final boolean WEB =
      ClassUtils.isPresent("org.springframework.web.client.RestClientResponseException", LOADER);
  private static final boolean RETRY =
      ClassUtils.isPresent("org.springframework.ai.retry.TransientAiException", LOADER);

  private final ObjectMapper mapper;

  SpringAiErrors(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  /** The failure {@code error} means, looking through its causes. */
  ModelException classify(Throwable error) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
      if (t instanceof ModelException model) {
        return model;
      }
      ModelException http = http(t);
      if (http != null) {
        return http;
      }
    }
    seen.clear();
    for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
      if (t instanceof JsonProcessingException json) {
        return ModelException.permanent(
            FailureTypes.MODEL_RESPONSE_INVALID,
            "The model server sent an answer Spring AI could not read: "
                + shorten(String.valueOf(json.getOriginalMessage())));
      }
      if (t instanceof IOException || t instanceof TimeoutException) {
        return ModelException.transientFailure(
            FailureTypes.MODEL_UNAVAILABLE,
            "The model server could not be reached, or broke the connection: " + describe(t),
            null);
      }
    }
    if (error instanceof IllegalArgumentException) {
      // Spring AI's own checks of a request it cannot send (an option the model lacks).
      return ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID,
          "The Spring AI model refused the request: " + describe(error));
    }
    return ModelException.transientFailure(
        FailureTypes.MODEL_ERROR, "The Spring AI model failed: " + describe(error), null);
  }

  /** A refusal with an HTTP status, or null when {@code t} is none. */
  private ModelException http(Throwable t) {
    if (WEBFLUX) {
      HttpRefusal refusal = WebFluxRefusals.of(t);
      if (refusal != null) {
        return forStatus(refusal);
      }
    }
    if (WEB) {
      HttpRefusal refusal = WebRefusals.of(t);
      if (refusal != null) {
        return forStatus(refusal);
      }
    }
    if (RETRY && AiExceptions.isAiException(t)) {
      String message = t.getMessage() == null ? "" : t.getMessage();
      Matcher status = STATUS_PREFIX.matcher(message);
      if (status.matches()) {
        return ModelException.forHttpStatus(
            Integer.parseInt(status.group(1)), detail(status.group(2)), null);
      }
      return AiExceptions.isTransient(t)
          ? ModelException.transientFailure(
              FailureTypes.MODEL_UNAVAILABLE, "The model failed: " + shorten(message), null)
          : ModelException.permanent(
              FailureTypes.MODEL_REQUEST_INVALID,
              "The model refused the request: " + shorten(message));
    }
    return null;
  }

  private ModelException forStatus(HttpRefusal refusal) {
    return ModelException.forHttpStatus(
        refusal.status(), detail(refusal.body()), refusal.retryAfter());
  }

  /** The server's own error message from a JSON error body, else the body itself (shortened). */
  String detail(String body) {
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
   * {@code error.message} with {@code error.type} (OpenAI, Anthropic, Mistral...), a bare {@code
   * error} string (Ollama), or {@code message}; null when the object has none of them.
   */
  private static String message(JsonNode node) {
    JsonNode error = node.get("error");
    if (error != null && error.isObject()) {
      String message = error.path("message").asText("");
      String type = error.path("type").asText("");
      String text = message.isEmpty() ? error.toString() : message;
      return type.isEmpty() ? text : text + " (" + type + ")";
    }
    if (error != null && error.isTextual()) {
      return error.textValue();
    }
    JsonNode message = node.get("message");
    return message != null && message.isTextual() ? message.textValue() : null;
  }

  private static String describe(Throwable t) {
    return t.getMessage() == null ? t.getClass().getSimpleName() : shorten(t.getMessage());
  }

  private static String shorten(String text) {
    return text.length() <= MAX_MESSAGE ? text : text.substring(0, MAX_MESSAGE) + "...";
  }

  /** A server's refusal: its status, its body and the wait its headers ask for (or null). */
  record HttpRefusal(int status, String body, Duration retryAfter) {}
}
