package io.durableagents.client;

/** A request the client could not carry out; the message says why. */
public class AgentClientException extends RuntimeException {
  /** A failure described by {@code message}. */
  public AgentClientException(String message) {
    super(message);
  }

  /** A failure described by {@code message}, caused by {@code cause}. */
  public AgentClientException(String message, Throwable cause) {
    super(message, cause);
  }
}
