package io.durableagents.projection.internal;

import io.durableagents.session.internal.ApprovalRecord;

/**
 * The row of one approval in {@code agent_approvals}: the record the workflow saved, and the
 * session it belongs to. {@code decidedAt} and {@code notifiedAt} read as 0 where they are null.
 */
public record StoredApproval(String sessionId, ApprovalRecord record) {}
