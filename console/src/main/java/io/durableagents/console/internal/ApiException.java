package io.durableagents.console.internal;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A refusal with its HTTP status and JSON body {@code {"error": CODE, "message": TEXT, ...}}: what
 * the API answers for bad input, missing things and conflicts. Thrown before anything changes.
 */
public final class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * When to try a recovering session again: a killed worker's workflow task times out after 10
   * seconds, and the next worker usually completes it at once.
   */
  public static final int RECOVERING_RETRY_AFTER_SECONDS = 10;

  private final int status;
  private final String code;
  private final transient Map<String, Object> details;

  private ApiException(int status, String code, String message, Map<String, Object> details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }

  public static ApiException badRequest(String field, String message) {
    return new ApiException(400, "bad_request", message, Map.of("field", field));
  }

  public static ApiException unauthorized(String message) {
    return new ApiException(401, "unauthorized", message, Map.of());
  }

  public static ApiException csrf(String message) {
    return new ApiException(403, "csrf", message, Map.of());
  }

  public static ApiException notFound(String message) {
    return new ApiException(404, "not_found", message, Map.of());
  }

  /** A 409: the request conflicts with the session's state, which {@code details} describe. */
  public static ApiException conflict(String code, String message, Map<String, Object> details) {
    return new ApiException(409, code, message, details);
  }

  public static ApiException tooLarge(long limit) {
    return new ApiException(
        413, "payload_too_large", "the body is over " + limit + " bytes", Map.of());
  }

  /** Any other status, e.g. one the HTTP server answered itself. */
  public static ApiException of(int status, String message) {
    String code =
        switch (status) {
          case 404 -> "not_found";
          case 405 -> "method_not_allowed";
          case 414 -> "uri_too_long";
          case 500 -> "internal";
          default -> status < 500 ? "bad_request" : "unavailable";
        };
    return new ApiException(status, code, message, Map.of());
  }

  public static ApiException unavailable(String message) {
    return new ApiException(503, "unavailable", message, Map.of());
  }

  /**
   * A 503 for a session that recovers from a worker failure: Temporal refused the request until the
   * client's retries ran out. Answered with {@link #RECOVERING_RETRY_AFTER_SECONDS} as Retry-After.
   */
  public static ApiException recovering(String message) {
    return new ApiException(503, "session_recovering", message, Map.of());
  }

  public int status() {
    return status;
  }

  /** The JSON body. */
  public Map<String, Object> body() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error", code);
    body.put("message", getMessage());
    body.putAll(details);
    return body;
  }
}
