package io.durableagents.client;

/**
 * The session would refuse this input, so nothing was sent: over a limit of {@code
 * io.durableagents.workflow.Limits} (characters per send, bytes per request), not valid Unicode
 * text, or not a plain user message. Also what a refusal of type {@code invalid_input} by the
 * session itself becomes. Sending the same input again cannot succeed.
 */
public class InvalidInputException extends AgentClientException {
  /** Input refused for the reason {@code message} gives. */
  public InvalidInputException(String message) {
    super(message);
  }

  /** Input refused for the reason {@code message} gives, caused by {@code cause}. */
  public InvalidInputException(String message, Throwable cause) {
    super(message, cause);
  }
}
