package io.durableagents.client;

/**
 * A reset, close or delete that another change of the same session overtook: two operators reset
 * one session at once, say. The session stays as the change that came first left it, and this
 * request changed nothing; look at the session again before repeating it.
 */
public class SessionConflictException extends AgentClientException {
  /** The session that another change took first. */
  private final String sessionId;

  /** {@code sessionId} was changed by another request first, as {@code message} explains. */
  public SessionConflictException(String sessionId, String message) {
    super(message);
    this.sessionId = sessionId;
  }

  /** The session that another change took first. */
  public String sessionId() {
    return sessionId;
  }
}
