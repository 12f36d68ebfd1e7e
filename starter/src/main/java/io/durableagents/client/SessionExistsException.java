package io.durableagents.client;

/**
 * A request that must create a session names one that exists already: a fork's {@code
 * newSessionId}, or a send with an {@link SendOptions#getAgent() agent} or {@link
 * SendOptions#getMaxSteps() maxSteps} other than the session's own, which only a session's first
 * send sets. Nothing was created or sent, and the same request cannot succeed: choose another id,
 * or leave the start options out to continue the session.
 */
public class SessionExistsException extends AgentClientException {
  /** The id that is taken. */
  private final String sessionId;

  /** A session with the id {@code sessionId} exists already. */
  public SessionExistsException(String sessionId) {
    this(sessionId, "Session '" + sessionId + "' already exists; choose another id.");
  }

  /** A session with the id {@code sessionId} exists already, as {@code message} explains. */
  public SessionExistsException(String sessionId, String message) {
    super(message);
    this.sessionId = sessionId;
  }

  /** The id that is taken. */
  public String sessionId() {
    return sessionId;
  }
}
