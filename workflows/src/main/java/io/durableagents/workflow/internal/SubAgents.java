package io.durableagents.workflow.internal;

import io.durableagents.session.Approval;
import io.durableagents.session.ApprovalStatus;
import io.durableagents.workflow.DecisionOutcome;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.durableagents.workflow.internal.wire.Decision;
import io.durableagents.workflow.internal.wire.SubAgentApproval;
import io.durableagents.workflow.internal.wire.SubAgentOrigin;
import io.temporal.workflow.SignalExternalWorkflowException;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;

/**
 * A session's part in a tree of sub-agent sessions. Upwards (when the session is a sub-agent's,
 * {@code origin} not null): its approvals are reported to its parent as they open and close.
 * Downwards: the approvals of the sessions below that are open now, which the session shows as its
 * own wait, and whose decisions it passes on to the session that asks.
 */
final class SubAgents {
  private static final Logger log = Workflow.getLogger(SubAgents.class);

  /** How deep sub-agent sessions nest below a session that is no sub-agent's. */
  static final int MAX_DEPTH = 3;

  private final String sessionId;
  private final SubAgentOrigin origin;

  /** The open approvals of the sessions below, by approval id, in the order they opened. */
  private final Map<String, Approval> waiting = new LinkedHashMap<>();

  /** How the approvals of the sessions below closed, by id: a passed-on decision's outcome. */
  private final Map<String, ApprovalStatus> closed = new LinkedHashMap<>();

  SubAgents(String sessionId, SubAgentOrigin origin) {
    this.sessionId = sessionId;
    this.origin = origin;
  }

  /** Whether this session is a sub-agent's. */
  boolean isSubAgent() {
    return origin != null;
  }

  /** The session's origin; null when it is no sub-agent's. */
  SubAgentOrigin origin() {
    return origin;
  }

  /** What every checkpoint entry of the session records of its parent (null: none). */
  CheckpointSave.SubAgentLink link() {
    return origin == null
        ? null
        : new CheckpointSave.SubAgentLink(origin.parentSessionId(), origin.toolCallId());
  }

  // ---- upwards: this session's own approvals -------------------------------------------------

  void approvalOpened(Approval approval) {
    tellParent(new SubAgentApproval(approval.askedBy(sessionId), ApprovalStatus.PENDING));
  }

  void approvalClosed(Approval approval, ApprovalStatus status) {
    tellParent(new SubAgentApproval(approval.askedBy(sessionId), status));
  }

  /**
   * Signals the parent. A parent that is gone (terminated: its children end with it) cannot be
   * told; that is logged, never this session's failure.
   */
  private void tellParent(SubAgentApproval notice) {
    if (origin == null) {
      return;
    }
    try {
      Workflow.newExternalWorkflowStub(AgentSessionWorkflow.class, origin.parentSessionId())
          .subAgentApproval(notice);
    } catch (SignalExternalWorkflowException e) {
      log.warn(
          "{}: could not tell parent {} of approval {}: {}",
          sessionId,
          origin.parentSessionId(),
          notice.approval().approvalId(),
          e.getMessage());
    }
  }

  // ---- downwards: the approvals of the sessions below ----------------------------------------

  /** Signal {@code subAgentApproval}: records the approval's state and tells this one's parent. */
  void noticed(SubAgentApproval notice) {
    if (notice == null || notice.approval() == null || notice.approval().approvalId() == null) {
      log.warn("{}: dropped a sub-agent approval notice without an approval", sessionId);
      return;
    }
    String approvalId = notice.approval().approvalId();
    if (notice.open()) {
      if (!closed.containsKey(approvalId)) {
        waiting.put(approvalId, notice.approval());
      }
    } else {
      waiting.remove(approvalId);
      closed.put(approvalId, notice.status());
      while (closed.size() > ApprovalGate.KEPT_CLOSED_IDS) {
        closed.remove(closed.keySet().iterator().next());
      }
    }
    tellParent(notice);
  }

  /** The first open approval of the sessions below, with the asking session's id; or null. */
  Approval waitingApproval() {
    return waiting.isEmpty() ? null : waiting.values().iterator().next();
  }

  /** Whether a session below asks for approval {@code approvalId} now. */
  boolean asks(String approvalId) {
    return approvalId != null && waiting.containsKey(approvalId);
  }

  /** Whether a session below has already closed approval {@code approvalId}. */
  boolean closedBelow(String approvalId) {
    return approvalId != null && closed.containsKey(approvalId);
  }

  /**
   * Passes {@code decision} on to the session that asks (signal {@code decide}) and answers how
   * that session closed the approval (the first decision there stands), or, when it has not said so
   * within {@link #CONFIRM_WAIT} (its worker is down), what this decision decides: the signal is
   * delivered, and that session takes it when it runs again.
   */
  DecisionOutcome decide(Decision decision) {
    Approval approval = waiting.get(decision.approvalId());
    pass(approval, decision);
    Workflow.await(CONFIRM_WAIT, () -> closed.containsKey(decision.approvalId()));
    ApprovalStatus outcome = closed.get(decision.approvalId());
    if (outcome == null) {
      outcome = decision.approved() ? ApprovalStatus.APPROVED : ApprovalStatus.REJECTED;
    }
    return new DecisionOutcome(
        approval.approvalId(), approval.toolCallId(), approval.toolName(), outcome);
  }

  /** How long a decision passed on waits for the asking session to say it took it. */
  static final Duration CONFIRM_WAIT = Duration.ofSeconds(30);

  /** The signal's way: passes {@code decision} on without waiting for the outcome. */
  void decideLater(Decision decision) {
    pass(waiting.get(decision.approvalId()), decision);
  }

  private void pass(Approval approval, Decision decision) {
    log.info(
        "{}: decision for approval {} passed on to sub-agent session {}",
        sessionId,
        approval.approvalId(),
        approval.sessionId());
    try {
      Workflow.newExternalWorkflowStub(AgentSessionWorkflow.class, approval.sessionId())
          .decide(decision);
    } catch (SignalExternalWorkflowException e) {
      log.warn(
          "{}: sub-agent session {} is gone; decision for approval {} dropped",
          sessionId,
          approval.sessionId(),
          approval.approvalId());
      waiting.remove(approval.approvalId());
      closed.put(approval.approvalId(), ApprovalStatus.CANCELLED);
    }
  }
}
