package io.durableagents.client;

/** The session has no pending approval with that id (never asked, or already decided). */
public class ApprovalNotFoundException extends AgentClientException {
  /** True when the approval exists but was decided already. */
  private final boolean alreadyDecided;

  /** An approval not found, saying whether it was already decided. */
  public ApprovalNotFoundException(String message, boolean alreadyDecided) {
    super(message);
    this.alreadyDecided = alreadyDecided;
  }

  /** True when the id was known but is decided or expired; false when it was never asked. */
  public boolean alreadyDecided() {
    return alreadyDecided;
  }
}
