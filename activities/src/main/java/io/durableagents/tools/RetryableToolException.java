package io.durableagents.tools;

/** A transient tool failure: the call is retried per the tool's retry policy. */
public class RetryableToolException extends RuntimeException {
  public RetryableToolException(String message) {
    super(message);
  }

  public RetryableToolException(String message, Throwable cause) {
    super(message, cause);
  }
}
