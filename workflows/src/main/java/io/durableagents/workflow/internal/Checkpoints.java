package io.durableagents.workflow.internal;

import io.durableagents.session.Approval;
import io.durableagents.session.ApprovalStatus;
import io.durableagents.session.RunStatus;
import io.durableagents.session.StepRecord;
import io.durableagents.session.internal.ApprovalRecord;
import io.durableagents.workflow.internal.activity.AgentSpec;
import io.durableagents.workflow.internal.activity.TurnSaves;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.durableagents.workflow.internal.wire.Decision;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Makes the session's checkpoint entries: each carries the messages added since the previous one
 * and the session's state at that step. {@link CheckpointWrites} decides how each reaches the
 * store; the methods here name the three ways a caller asks for.
 */
final class Checkpoints {
  private final SessionState state;
  private final CheckpointWrites writes;

  /** The run in progress, as its entries record it (null between runs). */
  private final Supplier<CheckpointSave.RunInfo> runInfo;

  /** The model turns and tool calls done since the last entry: the next entry records them. */
  private final List<CheckpointSave.Step> steps = new ArrayList<>();

  /** A sub-agent session's parent and call, on every entry (null: no sub-agent's). */
  private final CheckpointSave.SubAgentLink subAgentOf;

  Checkpoints(
      SessionState state,
      ActivityStubs stubs,
      Supplier<CheckpointSave.RunInfo> runInfo,
      CheckpointSave.SubAgentLink subAgentOf) {
    this.state = state;
    this.subAgentOf = subAgentOf;
    this.writes = new CheckpointWrites(stubs);
    this.runInfo = runInfo;
  }

  /** Saves an entry (after any that wait, in one transaction with them). */
  void save(int step, RunStatus status, String finishReason, List<ApprovalRecord> approvals) {
    writes.write(() -> entry(step, status, finishReason, approvals));
    saved(step);
  }

  void save(int step, RunStatus status, String finishReason) {
    save(step, status, finishReason, List.of());
  }

  /** Saves an entry as part of the next model turn's activity: nothing reads it before then. */
  void saveWithNextTurn(int step, RunStatus status, String finishReason) {
    writes.deferToNextTurn(() -> entry(step, status, finishReason, List.of()));
    saved(step);
  }

  /** Saves an entry by an activity started together with the next call's, without waiting. */
  void saveAlongsideNextCall(
      int step, RunStatus status, String finishReason, List<ApprovalRecord> approvals) {
    writes.startAlongside(() -> entry(step, status, finishReason, approvals));
    saved(step);
  }

  /** The view of the model turn the next entry records was compacted: it carries the record. */
  void compactionTaken(StepRecord step) {
    steps.add(new CheckpointSave.Step(0, step));
  }

  /** A model turn was recorded: the next entry carries it. */
  void modelTurnTaken(StepRecord step) {
    steps.add(new CheckpointSave.Step(0, step));
  }

  /** The result of the run's call at {@code position} was recorded: the next entry carries it. */
  void toolCallTaken(int position, StepRecord step) {
    steps.add(new CheckpointSave.Step(position, step));
  }

  /** Writes every entry still waiting (before continue-as-new). */
  void flush() {
    writes.flush();
  }

  /** The saves the next model turn carries, once a save running alongside a call is done. */
  TurnSaves nextTurn(AgentSpec spec, boolean missedInRun) {
    writes.awaitAlongside();
    return writes.nextTurn(spec, missedInRun);
  }

  void turnCompleted(TurnSaves saves) {
    writes.turnCompleted(saves);
  }

  /**
   * The turn found a worker without the transcript its held saves continue: the next one writes.
   */
  void turnMissedTranscript() {
    writes.turnMissedTranscript();
  }

  private void saved(int step) {
    state.transcript().markSaved();
    state.stepSaved(step);
  }

  private CheckpointSave entry(
      int step, RunStatus status, String finishReason, List<ApprovalRecord> approvals) {
    AgentSpec spec = state.spec();
    List<CheckpointSave.Step> taken = List.copyOf(steps);
    steps.clear();
    return new CheckpointSave(
        state.sessionId(),
        Workflow.getInfo().getFirstExecutionRunId(),
        state.shownAgent(),
        state.activeRun(),
        step,
        status,
        finishReason,
        state.transcript().stored(),
        state.transcript().unsaved(),
        state.totalUsage(),
        spec == null ? null : spec.fingerprint(),
        Workflow.currentTimeMillis(),
        approvals,
        state.businessState(),
        null,
        runInfo.get(),
        taken,
        subAgentOf);
  }

  /** The approval row of an entry: asked, decided, expired or cancelled at {@code decidedAt}. */
  static ApprovalRecord approvalRecord(
      Approval approval,
      int run,
      int atStep,
      ApprovalStatus approvalState,
      Decision decision,
      long decidedAt) {
    return new ApprovalRecord(
        approval,
        run,
        atStep,
        approvalState,
        decidedAt,
        decision == null ? null : decision.decidedBy(),
        decision == null ? null : decision.note(),
        0);
  }
}
