package io.durableagents.client.internal;

import io.durableagents.client.AgentClientException;
import io.durableagents.client.CheckpointNotFoundException;
import io.durableagents.client.HistoryEntry;
import io.durableagents.client.InvalidInputException;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SessionConflictException;
import io.durableagents.client.SessionIds;
import io.durableagents.client.SessionNotFoundException;
import io.durableagents.client.SessionRow;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.internal.wire.ForkOutcome;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.client.WorkflowOptions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A reset: the session's workflow is closed, then a new workflow under the same id moves the
 * session back to one of its history entries (the worker marks the later entries superseded and
 * restores the entry's transcript, business state and totals). The entry is checked before anything
 * is changed.
 */
public final class ResetCalls {
  /** A send that starts the session again between the close and the reset's start: at most this. */
  private static final int MAX_RESET_ATTEMPTS = 5;

  /**
   * The memo a reset's workflow starts with (the step it resets to): another reset that finds it
   * knows it was overtaken.
   */
  static final String RESET_MEMO = "agents.resetTo";

  private final ClientCalls calls;
  private final LifecycleCalls lifecycle;

  /** Resets through {@code calls}; {@code lifecycle} closes the session first. */
  public ResetCalls(ClientCalls calls, LifecycleCalls lifecycle) {
    this.calls = calls;
    this.lifecycle = lifecycle;
  }

  /** Moves {@code sessionId} back to its history entry {@code step}; answers its status. */
  public SessionStatus reset(String sessionId, int step, boolean force) {
    SessionIds.requireValid(sessionId);
    ProjectionReader projection = calls.options().getProjection();
    if (projection == null) {
      throw new IllegalStateException(
          "reset reads the projection: build the client with"
              + " AgentClientOptions.newBuilder().setProjection(ProjectionReader.open(jdbcUrl))");
    }
    SessionRow row =
        projection.session(sessionId).orElseThrow(() -> new SessionNotFoundException(sessionId));
    HistoryEntry entry =
        projection
            .historyEntry(sessionId, step)
            .orElseThrow(() -> notKept(projection, sessionId, step));
    if (entry.superseded()) {
      throw new InvalidInputException(
          "Entry "
              + step
              + " of session '"
              + sessionId
              + "' was superseded by the "
              + entry.supersededBy()
              + "; reset to an entry of its current line: "
              + currentSteps(projection, sessionId)
              + ".");
    }
    lifecycle.requireOwnTaskQueue(sessionId, "reset");
    // The chain of workflow runs this reset found first: a reset's workflow that replaced it
    // meanwhile is another reset of the same session, which came first.
    String seenChain = null;
    for (int attempt = 1; attempt <= MAX_RESET_ATTEMPTS; attempt++) {
      Optional<WorkflowExecutionInfo> latest = lifecycle.latest(sessionId);
      if (attempt > 1
          && latest.isPresent()
          && !latest.get().getFirstRunId().equals(seenChain)
          && isReset(latest.get())) {
        throw overtaken(sessionId, step);
      }
      seenChain = latest.map(WorkflowExecutionInfo::getFirstRunId).orElse(null);
      if (latest.isPresent()
          && latest.get().getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING
          && lifecycle.closeChain(sessionId, seenChain, force).isEmpty()) {
        // Started again after this reset looked: look at what started it.
        continue;
      }
      ForkOutcome outcome = startReset(sessionId, row.agent(), step);
      if (outcome == null) {
        // Started again after its close (a send, or another reset): look at what started it.
        continue;
      }
      if (outcome.isRefused()) {
        if (projection.historyEntry(sessionId, step).map(HistoryEntry::superseded).orElse(false)) {
          // Superseded since this reset checked it: another reset of the session came first.
          throw overtaken(sessionId, step);
        }
        throw new AgentClientException(
            "Session '"
                + sessionId
                + "' was not reset to step "
                + step
                + ": "
                + outcome.refusal()
                + " It goes on from its newest entry.");
      }
      return outcome.status();
    }
    throw new AgentClientException(
        "Session '"
            + sessionId
            + "' kept being started again by sends; its reset to step "
            + step
            + " did not happen.");
  }

  /** Whether {@code execution} is the workflow a reset started. */
  private static boolean isReset(WorkflowExecutionInfo execution) {
    return execution.getMemo().getFieldsMap().containsKey(RESET_MEMO);
  }

  private static SessionConflictException overtaken(String sessionId, int step) {
    return new SessionConflictException(
        sessionId,
        "Session '"
            + sessionId
            + "' was reset by another request at the same time; this reset to step "
            + step
            + " was not made, and the session stays where the other one put it. Look at its"
            + " history before resetting again.");
  }

  /**
   * Starts the reset's workflow and waits until the session is moved back, in one call
   * (update-with-start). Null when a workflow under the id runs already.
   */
  private ForkOutcome startReset(String sessionId, String agent, int step) {
    WorkflowOptions options =
        WorkflowOptions.newBuilder()
            .setWorkflowId(sessionId)
            .setTaskQueue(calls.options().getTaskQueue())
            .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL)
            .setStaticSummary(SessionCalls.staticSummary(agent) + " · reset to step " + step)
            .setMemo(Map.of(RESET_MEMO, step))
            .build();
    try {
      return calls.startPrepared(options, SessionStart.reset(sessionId, step));
    } catch (RuntimeException e) {
      throw ClientFailures.failure(sessionId, e, "Cannot reset '" + sessionId + "'", true);
    }
  }

  private static CheckpointNotFoundException notKept(
      ProjectionReader projection, String sessionId, int step) {
    return new CheckpointNotFoundException(sessionId, step, currentSteps(projection, sessionId));
  }

  /** The steps of the session's kept entries that no reset superseded, oldest first. */
  private static List<Integer> currentSteps(ProjectionReader projection, String sessionId) {
    List<Integer> steps = new ArrayList<>();
    for (HistoryEntry entry : projection.history(sessionId, 0)) {
      if (!entry.superseded()) {
        steps.add(entry.step());
      }
    }
    Collections.sort(steps);
    return steps;
  }
}
