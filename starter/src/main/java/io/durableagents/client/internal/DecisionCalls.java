package io.durableagents.client.internal;

import io.durableagents.client.ApprovalNotFoundException;
import io.durableagents.client.ApprovalRow;
import io.durableagents.client.DecisionOptions;
import io.durableagents.client.InvalidInputException;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SessionIds;
import io.durableagents.client.SessionNotFoundException;
import io.durableagents.workflow.DecisionOutcome;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.Decision;
import io.durableagents.workflow.internal.wire.InputChecks;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowUpdateStage;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** Decisions on a session's pending approvals: update {@code approve}, answered once taken. */
public final class DecisionCalls {
  private final ClientCalls calls;

  /** Decisions through {@code calls}. */
  public DecisionCalls(ClientCalls calls) {
    this.calls = calls;
  }

  /**
   * Decides approval {@code approvalId} of {@code sessionId}. A retry of a decision the session
   * took is answered with its outcome (same update id); one the session took from somebody else is
   * refused as already decided.
   */
  public DecisionOutcome decide(
      String sessionId, String approvalId, boolean approved, DecisionOptions decisionOptions) {
    Decision decision = decision(sessionId, approvalId, approved, decisionOptions);
    AgentSessionWorkflow stub = calls.session(sessionId);
    UpdateOptions<DecisionOutcome> completed =
        ClientCalls.update(DecisionOutcome.class, "approve", WorkflowUpdateStage.COMPLETED);
    try {
      return calls.call(
          sessionId,
          () -> WorkflowClient.startUpdate(stub::approve, decision, completed).getResult());
    } catch (RuntimeException e) {
      throw settledElsewhere(sessionId, approvalId, refused(sessionId, e));
    }
  }

  /** {@link #decide} without holding the caller's thread. */
  public CompletableFuture<DecisionOutcome> decideAsync(
      String sessionId, String approvalId, boolean approved, DecisionOptions decisionOptions) {
    Decision decision = decision(sessionId, approvalId, approved, decisionOptions);
    AgentSessionWorkflow stub = calls.session(sessionId);
    UpdateOptions<DecisionOutcome> accepted =
        ClientCalls.update(DecisionOutcome.class, "approve", WorkflowUpdateStage.ACCEPTED);
    return calls.updateAsync(
        sessionId,
        () -> WorkflowClient.startUpdate(stub::approve, decision, accepted),
        e -> settledElsewhere(sessionId, approvalId, refused(sessionId, e)));
  }

  /**
   * A decision for an approval that the running workflow does not know, or for a session whose
   * workflow is closed: when the projection holds the approval settled (cancelled by a forced close
   * or reset, decided, expired), it is already decided, not unknown. {@code refusal} as it is
   * otherwise.
   */
  private RuntimeException settledElsewhere(
      String sessionId, String approvalId, RuntimeException refusal) {
    boolean unknown =
        refusal instanceof SessionNotFoundException
            || (refusal instanceof ApprovalNotFoundException notFound
                && !notFound.alreadyDecided());
    ProjectionReader projection = calls.options().getProjection();
    if (!unknown || projection == null) {
      return refusal;
    }
    Optional<ApprovalRow> settled;
    try {
      settled =
          projection.approvals(sessionId, false).stream()
              .filter(row -> row.approvalId().equals(approvalId) && !row.isPending())
              .findFirst();
    } catch (RuntimeException e) {
      refusal.addSuppressed(e);
      return refusal;
    }
    return settled
        .<RuntimeException>map(
            row ->
                new ApprovalNotFoundException(
                    "Approval "
                        + approvalId
                        + " of session '"
                        + sessionId
                        + "' is already decided: "
                        + row.status().value()
                        + (row.decidedBy() == null ? "" : " by " + row.decidedBy())
                        + ".",
                    true))
        .orElse(refusal);
  }

  private static RuntimeException refused(String sessionId, RuntimeException e) {
    return ClientFailures.failure(sessionId, e, "Temporal refused the decision", true);
  }

  /**
   * The decision, checked with the session's own rules before it is sent: the session would refuse
   * it, and Temporal refuses a request over its limits.
   */
  private static Decision decision(
      String sessionId, String approvalId, boolean approved, DecisionOptions decisionOptions) {
    SessionIds.requireValid(sessionId);
    Objects.requireNonNull(approvalId, "approvalId");
    Objects.requireNonNull(decisionOptions, "decisionOptions");
    Decision decision =
        new Decision(
            approvalId, approved, decisionOptions.getNote(), decisionOptions.getDecidedBy());
    String problem = InputChecks.decisionProblem(decision);
    if (problem != null) {
      throw new InvalidInputException(problem);
    }
    return decision;
  }
}
