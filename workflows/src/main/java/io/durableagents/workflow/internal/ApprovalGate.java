package io.durableagents.workflow.internal;

import io.durableagents.session.Approval;
import io.durableagents.session.ApprovalStatus;
import io.durableagents.session.internal.ApprovalRecord;
import io.durableagents.workflow.DecisionOutcome;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.internal.wire.Decision;
import io.durableagents.workflow.internal.wire.InputChecks;
import io.durableagents.workflow.internal.wire.Rejection;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;

/**
 * The session's one pending approval and the decision for it. A decision arrives as the {@code
 * approve} update (validated, so its caller learns the outcome) or the {@code decide} signal (which
 * cannot be refused: a bad one is dropped and logged). The first decision stands; an id decided or
 * expired stays closed, so a late duplicate is recognised.
 */
final class ApprovalGate {
  private static final Logger log = Workflow.getLogger(ApprovalGate.class);
  static final int KEPT_CLOSED_IDS = 1000;

  private final String sessionId;
  private Approval pending;
  private Decision decision;

  /** True once the pause is saved: only then do waiting senders see it. */
  private boolean pauseSaved;

  /** Approval ids decided or expired: a later decision for them is a duplicate. */
  private final Set<String> closed = new LinkedHashSet<>();

  ApprovalGate(String sessionId) {
    this.sessionId = sessionId;
  }

  Approval pending() {
    return pending;
  }

  boolean hasDecision() {
    return decision != null;
  }

  /** The pause is saved and no decision has arrived: a sender is answered "awaiting approval". */
  boolean awaitingDecision() {
    return pauseSaved && decision == null;
  }

  /** The {@code decide} signal: records a valid decision for the pending approval, drops others. */
  void signalled(Decision signalled) {
    String problem = signalled == null ? null : InputChecks.decisionProblem(signalled);
    if (problem != null) {
      // A signal cannot be refused: a decision over a limit is dropped, never recorded, so the
      // checkpoint it would land on stays within Temporal's payload limits.
      log.warn(
          "decide on {}: dropped the decision for approval {}: {}",
          sessionId,
          InputChecks.shown(signalled.approvalId()),
          problem);
      return;
    }
    if (signalled == null || !isPending(signalled.approvalId()) || decision != null) {
      // Unknown, late, or a second decision for the pending approval: the first one stands.
      log.warn(
          "decide on {}: ignored decision for approval {} ({})",
          sessionId,
          signalled == null ? null : signalled.approvalId(),
          signalled != null && closed.contains(signalled.approvalId())
              ? "already decided or expired"
              : "unknown approval id");
      return;
    }
    decision = signalled;
  }

  /** The {@code approve} update's validator: refuses what the update could not record. */
  void validate(Decision offered) {
    if (offered == null || offered.approvalId() == null) {
      throw Rejection.failure(FailureTypes.UNKNOWN_APPROVAL, "A decision needs an approvalId.");
    }
    String problem = InputChecks.decisionProblem(offered);
    if (problem != null) {
      throw Rejection.failure(FailureTypes.INVALID_DECISION, problem, sessionId);
    }
    if (closed.contains(offered.approvalId())
        || (isPending(offered.approvalId()) && decision != null)) {
      throw Rejection.failure(
          FailureTypes.APPROVAL_ALREADY_DECIDED,
          "Approval "
              + offered.approvalId()
              + " of session '"
              + sessionId
              + "' is already decided.",
          sessionId,
          offered.approvalId());
    }
    if (!isPending(offered.approvalId())) {
      throw Rejection.failure(
          FailureTypes.UNKNOWN_APPROVAL,
          "Session '" + sessionId + "' has no pending approval " + offered.approvalId() + ".",
          sessionId,
          offered.approvalId());
    }
  }

  /** The {@code approve} update, once validated: records the decision and says what it decided. */
  DecisionOutcome accepted(Decision accepted) {
    Approval approval = pending;
    decision = accepted;
    return new DecisionOutcome(
        approval.approvalId(),
        approval.toolCallId(),
        approval.toolName(),
        accepted.approved() ? ApprovalStatus.APPROVED : ApprovalStatus.REJECTED);
  }

  private boolean isPending(String approvalId) {
    return pending != null && pending.approvalId().equals(approvalId);
  }

  /** A new approval is asked for: no decision yet. */
  void opened(Approval approval) {
    pending = approval;
    decision = null;
  }

  /** The pause is saved (or carried over continue-as-new): senders may now be told about it. */
  void pauseSaved(Approval approval) {
    pending = approval;
    pauseSaved = true;
  }

  /**
   * Waits until a decision arrives, {@code timeout} passes or {@code stopWaiting} holds; false when
   * the timeout passed.
   */
  boolean awaitDecision(Duration timeout, BooleanSupplier stopWaiting) {
    return Workflow.await(timeout, () -> decision != null || stopWaiting.getAsBoolean());
  }

  /**
   * Closes the pending approval: answers its decision (null: it expired) and keeps its id closed.
   */
  Decision close() {
    Decision taken = decision;
    String approvalId = pending.approvalId();
    pauseSaved = false;
    pending = null;
    decision = null;
    closed.add(approvalId);
    while (closed.size() > KEPT_CLOSED_IDS) {
      closed.remove(closed.iterator().next());
    }
    return taken;
  }

  /**
   * A cancel closes the pending approval, if there is one: the record of that (for the entry that
   * settles the run), or null.
   */
  ApprovalRecord cancelled(int run, int atStep) {
    if (pending == null) {
      return null;
    }
    ApprovalRecord record =
        Checkpoints.approvalRecord(
            pending, run, atStep, ApprovalStatus.CANCELLED, null, Workflow.currentTimeMillis());
    closed.add(pending.approvalId());
    pauseSaved = false;
    pending = null;
    decision = null;
    return record;
  }

  List<String> closedIds() {
    return List.copyOf(closed);
  }

  /** What continue-as-new carried over: the closed ids, and an approval a run still waits on. */
  void restore(List<String> closedIds, Approval waitingOn) {
    closed.addAll(closedIds);
    pending = waitingOn;
    pauseSaved = waitingOn != null;
  }
}
