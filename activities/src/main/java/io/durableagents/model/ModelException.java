package io.durableagents.model;

import java.time.Duration;

/**
 * A failed model call. {@code retryable} failures (429, 5xx, timeouts) are retried per the model
 * activity's retry policy, after {@code retryAfter} when the provider said so; the others fail the
 * run with {@code code}.
 */
public class ModelException extends RuntimeException {
  /** The failure type the run fails with when it is not retried. */
  private final String code;

  /** True when a retry may succeed. */
  private final boolean retryable;

  /** The provider's wait before a retry, or null. */
  private final Duration retryAfter;

  /** What the model streamed before the failure, or null. */
  private final String partialText;

  /** A failure with its code and message; {@code retryAfter} may be null. */
  public ModelException(String code, String message, boolean retryable, Duration retryAfter) {
    this(code, message, retryable, retryAfter, null);
  }

  /**
   * A failure with its code and message, and the text the model streamed before it ({@code
   * partialText}, null: none); {@code retryAfter} may be null.
   */
  public ModelException(
      String code, String message, boolean retryable, Duration retryAfter, String partialText) {
    super(message);
    this.code = code;
    this.retryable = retryable;
    this.retryAfter = retryAfter;
    this.partialText = partialText == null || partialText.isEmpty() ? null : partialText;
  }

  /** A failure that no retry can fix. */
  public static ModelException permanent(String code, String message) {
    return new ModelException(code, message, false, null);
  }

  /** A transient failure, retried after {@code retryAfter} (null: the policy's backoff). */
  public static ModelException transientFailure(String code, String message, Duration retryAfter) {
    return new ModelException(code, message, true, retryAfter);
  }

  /** The failure type the run fails with when it is not retried. */
  public String code() {
    return code;
  }

  /** True when a retry may succeed. */
  public boolean retryable() {
    return retryable;
  }

  /** How long to wait before the retry, as the provider said; null when it did not. */
  public Duration retryAfter() {
    return retryAfter;
  }

  /**
   * The text the model streamed before the failure, which the failed step of the run's history
   * keeps; null when it streamed none.
   */
  public String partialText() {
    return partialText;
  }

  /**
   * This failure with the text the model streamed before it; this one when {@code text} is empty or
   * it already has one.
   */
  public ModelException withPartialText(String text) {
    if (text == null || text.isEmpty() || partialText != null) {
      return this;
    }
    ModelException copy = new ModelException(code, getMessage(), retryable, retryAfter, text);
    copy.setStackTrace(getStackTrace());
    return copy;
  }
}
