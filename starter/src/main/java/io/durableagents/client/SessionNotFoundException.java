package io.durableagents.client;

/** The session does not exist (no workflow with that id). */
public class SessionNotFoundException extends AgentClientException {
  private final String sessionId;

  public SessionNotFoundException(String sessionId) {
    super("No session '" + sessionId + "'.");
    this.sessionId = sessionId;
  }

  public String sessionId() {
    return sessionId;
  }
}
