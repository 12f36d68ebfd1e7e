package io.durableagents.client;

/** A request the client could not carry out; the message says why. */
public class AgentClientException extends RuntimeException {
  public AgentClientException(String message) {
    super(message);
  }

  public AgentClientException(String message, Throwable cause) {
    super(message, cause);
  }
}
