package io.durableagents.model;

import java.time.Duration;

/**
 * A failed model call. {@code retryable} failures (429, 5xx, timeouts) are retried per the model
 * activity's retry policy, after {@code retryAfter} when the provider said so; the others fail the
 * run with {@code code}.
 */
public class ModelException extends RuntimeException {
  private final String code;
  private final boolean retryable;
  private final Duration retryAfter;

  public ModelException(String code, String message, boolean retryable, Duration retryAfter) {
    super(message);
    this.code = code;
    this.retryable = retryable;
    this.retryAfter = retryAfter;
  }

  /** A failure that no retry can fix. */
  public static ModelException permanent(String code, String message) {
    return new ModelException(code, message, false, null);
  }

  /** A transient failure, retried after {@code retryAfter} (null: the policy's backoff). */
  public static ModelException transientFailure(String code, String message, Duration retryAfter) {
    return new ModelException(code, message, true, retryAfter);
  }

  public String code() {
    return code;
  }

  public boolean retryable() {
    return retryable;
  }

  public Duration retryAfter() {
    return retryAfter;
  }
}
