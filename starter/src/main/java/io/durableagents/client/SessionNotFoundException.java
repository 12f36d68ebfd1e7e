package io.durableagents.client;

/** The session does not exist (no workflow with that id). */
public class SessionNotFoundException extends AgentClientException {
  /** The id that names no session. */
  private final String sessionId;

  /** No session has the id {@code sessionId}. */
  public SessionNotFoundException(String sessionId) {
    super("No session '" + sessionId + "'.");
    this.sessionId = sessionId;
  }

  /** The id no session has. */
  public String sessionId() {
    return sessionId;
  }
}
