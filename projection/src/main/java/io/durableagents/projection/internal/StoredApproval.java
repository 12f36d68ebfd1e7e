package io.durableagents.projection.internal;

import io.durableagents.session.internal.ApprovalRecord;

/**
 * The row of one approval in {@code agent_approvals}: the record the workflow saved, and the
 * session it belongs to. {@code decidedAt} and {@code notifiedAt} read as 0 where they are null.
 * {@code parentSessionId}: when that session is a sub-agent's, its parent session; otherwise null.
 */
public record StoredApproval(String sessionId, ApprovalRecord record, String parentSessionId) {

  public StoredApproval(String sessionId, ApprovalRecord record) {
    this(sessionId, record, null);
  }

  /** This approval, its session a sub-agent session of {@code parent}. */
  StoredApproval withParent(String parent) {
    return new StoredApproval(sessionId, record, parent);
  }
}
