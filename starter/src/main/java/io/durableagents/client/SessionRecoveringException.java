package io.durableagents.client;

/**
 * Temporal refuses requests to the session for now: its workflow task keeps failing, most often
 * because the worker that ran it was killed, and the server takes no update or query for it until a
 * worker completes the task (a killed worker's task times out after 10 seconds). Decisions, sends
 * and cancels are retried until {@link AgentClientOptions#getRecoveryTimeout()} has passed; this is
 * what the caller gets after that (and at once from {@link AgentClient#status}). Try again later:
 * retries of a decision or a send are recognised as such (see {@code docs/errors.md}).
 */
public class SessionRecoveringException extends AgentClientException {
  /** The session that still recovers. */
  private final String sessionId;

  /** The session {@code sessionId} is recovering; {@code cause} is the last refusal. */
  public SessionRecoveringException(String sessionId, Throwable cause) {
    super(
        "Session '"
            + sessionId
            + "' is recovering from a worker failure: Temporal takes no requests for it until a"
            + " worker completes its workflow task. Try again in a minute.",
        cause);
    this.sessionId = sessionId;
  }

  /** The session that is recovering. */
  public String sessionId() {
    return sessionId;
  }
}
