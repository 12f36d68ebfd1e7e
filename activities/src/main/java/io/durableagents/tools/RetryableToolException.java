package io.durableagents.tools;

/** A transient tool failure: the call is retried per the tool's retry policy. */
public class RetryableToolException extends RuntimeException {
  /** A transient tool failure described by {@code message}. */
  public RetryableToolException(String message) {
    super(message);
  }

  /** A transient tool failure described by {@code message}, caused by {@code cause}. */
  public RetryableToolException(String message, Throwable cause) {
    super(message, cause);
  }
}
