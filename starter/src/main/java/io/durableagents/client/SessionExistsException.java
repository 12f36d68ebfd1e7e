package io.durableagents.client;

/**
 * A fork's {@code newSessionId} names a session that exists already: nothing was created, and the
 * same request cannot succeed. Choose another id, or let the fork pick a free one.
 */
public class SessionExistsException extends AgentClientException {
  private final String sessionId;

  /** A session with the id {@code sessionId} exists already. */
  public SessionExistsException(String sessionId) {
    super("Session '" + sessionId + "' already exists; choose another id.");
    this.sessionId = sessionId;
  }

  /** The id that is taken. */
  public String sessionId() {
    return sessionId;
  }
}
