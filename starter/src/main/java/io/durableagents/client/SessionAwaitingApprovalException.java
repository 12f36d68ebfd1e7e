package io.durableagents.client;

/**
 * A session refused new input because a tool call waits for a decision. Decide it first ({@link
 * AgentClient#approve} or {@link AgentClient#reject}, then {@link AgentClient#awaitRun} for the run
 * to settle), then send again.
 */
public class SessionAwaitingApprovalException extends AgentClientException {
  /** The session that waits for a decision. */
  private final String sessionId;

  /** The approval it waits for. */
  private final String approvalId;

  /** The session {@code sessionId} waits for the decision on {@code approvalId}. */
  public SessionAwaitingApprovalException(String sessionId, String approvalId, String message) {
    super(message);
    this.sessionId = sessionId;
    this.approvalId = approvalId;
  }

  /** The session that waits. */
  public String sessionId() {
    return sessionId;
  }

  /** The approval it waits for. */
  public String approvalId() {
    return approvalId;
  }
}
