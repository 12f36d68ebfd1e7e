package io.durableagents.workflow.internal;

import io.durableagents.conversation.FinishReason;
import io.durableagents.session.ApprovalStatus;
import io.durableagents.session.RunStatus;
import io.durableagents.session.internal.ApprovalRecord;
import io.durableagents.workflow.ErrorInfo;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.activity.ModelTurnResult;
import java.util.ArrayList;
import java.util.List;

/**
 * How a run ends, one method for each way (answered, out of budget, failed, cancelled or timed
 * out): the run's timer stops, an entry records the settled state where the last one does not, and
 * the run's {@link RunResult} is built. Also builds the results of a run still going.
 */
final class RunSettlement {
  private final Session session;
  private final SessionState state;
  private final RunProgress progress;

  RunSettlement(Session session, RunProgress progress) {
    this.session = session;
    this.state = session.state;
    this.progress = progress;
  }

  /** The model answered without calls and no input is waiting: the run's final result. */
  RunResult answered(ModelTurnResult turn, RunTimer timer) {
    timer.disarm();
    if (turn.outputError() != null) {
      return result(
          RunStatus.FAILED,
          FinishReason.ERROR,
          new ErrorInfo(FailureTypes.INVALID_OUTPUT, turn.outputError()));
    }
    progress.outputGiven(turn.output());
    return result(RunStatus.FINISHED, FinishReason.STOP, null);
  }

  /** A budget is used up: the last entry is saved again, now settled. */
  RunResult outOfBudget(String reason, RunTimer timer) {
    timer.disarm();
    session.inbox.moveInterjectionsTo(state.transcript());
    session.checkpoints.save(Math.max(state.step(), 1), RunStatus.FINISHED, reason);
    return result(RunStatus.FINISHED, reason, null);
  }

  /** The run failed with {@code error}; {@code timer} is null before the run armed one. */
  RunResult failed(ErrorInfo error, RunTimer timer) {
    if (timer != null) {
      timer.disarm();
    }
    if (state.transcript().hasUnsaved() || state.step() == 0) {
      session.checkpoints.save(state.step() + 1, RunStatus.FAILED, FinishReason.ERROR);
    }
    return result(RunStatus.FAILED, FinishReason.ERROR, error);
  }

  /**
   * Settles a cancelled run: calls of the turn without a result ({@code batch}'s, if one was
   * running) get {@code cancelled}, a pending approval is closed, and one entry records the state.
   * A run its {@code timer} cancelled failed with a timeout.
   */
  RunResult cancelled(RunTimer timer, ToolBatch batch) {
    if (timer != null) {
      timer.forget();
    }
    List<ApprovalRecord> approvals = new ArrayList<>();
    ApprovalRecord closed = session.approvals.cancelled(progress.run(), state.step());
    if (closed != null) {
      approvals.add(closed);
      session.subAgents.approvalClosed(closed.approval(), ApprovalStatus.CANCELLED);
    }
    if (batch != null) {
      batch.fillCancelled();
    }
    session.inbox.moveInterjectionsTo(state.transcript());
    if (timer != null && timer.timedOut()) {
      session.checkpoints.save(state.step() + 1, RunStatus.FAILED, FinishReason.TIMEOUT, approvals);
      return result(
          RunStatus.FAILED,
          FinishReason.TIMEOUT,
          new ErrorInfo(
              FailureTypes.RUN_TIMEOUT,
              "The run exceeded its timeout of " + timer.timeoutMs() + " ms."));
    }
    session.checkpoints.save(
        state.step() + 1, RunStatus.CANCELLED, FinishReason.CANCELLED, approvals);
    return result(RunStatus.CANCELLED, FinishReason.CANCELLED, null);
  }

  /** Where the run stands, for a sender answered at a continue-as-new boundary. */
  RunResult inProgress() {
    return result(RunStatus.IN_PROGRESS, null, null);
  }

  /** The run waits for a decision on its pending approval. */
  RunResult paused() {
    return progress.pausedResult(
        session.id(),
        RunStatus.AWAITING_APPROVAL,
        FinishReason.AWAITING_APPROVAL,
        session.waitingApproval(),
        state.step(),
        state.transcript().size());
  }

  private RunResult result(RunStatus status, String finishReason, ErrorInfo error) {
    return progress.result(
        session.id(), status, finishReason, error, state.step(), state.transcript().size());
  }
}
