package io.durableagents.workflow.internal;

import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.ToolCall;
import io.durableagents.session.RunStatus;
import io.durableagents.session.StepRecord;
import io.durableagents.workflow.ErrorInfo;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.internal.activity.AgentSpec;
import io.durableagents.workflow.internal.activity.ModelFailureDetails;
import io.durableagents.workflow.internal.activity.ModelTurnRequest;
import io.durableagents.workflow.internal.activity.ModelTurnResult;
import io.durableagents.workflow.internal.activity.TurnSaves;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;

/**
 * The model turns of one run: each sent as an activity with the checkpoint entries it carries, sent
 * again when its worker lost the transcript of the held saves or the store is down, and its answer
 * recorded in the run's progress, the transcript and a checkpoint entry.
 */
final class ModelTurns {
  private static final Logger log = Workflow.getLogger(ModelTurns.class);

  private final Session session;
  private final SessionState state;
  private final RunProgress progress;

  /** What a turn of this run reported changed in the worker's definition (null: nothing). */
  private String drift;

  private Duration storeBackoff = Duration.ZERO;

  /** Set when a turn of this run found a worker without the transcript it held saves on. */
  private boolean heldSavesMissed;

  /** The turns of the run whose {@code progress} they add to; {@code drift} as carried over. */
  ModelTurns(Session session, RunProgress progress, String drift) {
    this.session = session;
    this.state = session.state;
    this.progress = progress;
    this.drift = drift;
  }

  String drift() {
    return drift;
  }

  /**
   * Sends the turn at {@code turnStep} of agent {@code spec} with the saves it carries; throws the
   * activity's failure.
   */
  ModelTurnResult send(AgentSpec spec, int turnStep) {
    TurnSaves saves = session.checkpoints.nextTurn(spec, heldSavesMissed);
    ModelTurnResult turn =
        session.stubs.model(spec, turnStep).modelTurn(request(spec, turnStep, saves));
    session.checkpoints.turnCompleted(saves);
    storeBackoff = Duration.ZERO;
    if (turn.drift() != null) {
      drift = turn.drift();
    }
    return turn;
  }

  /**
   * A turn failed with {@code error}: whether it is sent again (the held saves' worker was gone, or
   * the store is down and is waited out like a checkpoint save).
   */
  boolean retries(ErrorInfo error) {
    if (FailureTypes.HELD_SAVES_UNKNOWN.equals(error.code())) {
      // Another worker, or one that forgot the transcript: the turn writes what is held.
      session.checkpoints.turnMissedTranscript();
      heldSavesMissed = true;
      return true;
    }
    if (FailureTypes.STORE_UNAVAILABLE.equals(error.code())) {
      storeBackoff = storeBackoff.isZero() ? Duration.ofSeconds(1) : storeBackoff.multipliedBy(2);
      if (storeBackoff.compareTo(Duration.ofMinutes(1)) > 0) {
        storeBackoff = Duration.ofMinutes(1);
      }
      log.warn(
          "{}: store unavailable for the model turn; retrying in {}", session.id(), storeBackoff);
      Workflow.sleep(storeBackoff);
      return true;
    }
    return false;
  }

  /**
   * Records a model turn's answer in the run and the transcript and saves its entry: with the next
   * turn when it asks for tools (the batch's tools do not read the transcript), else now. Answers
   * its calls, each with an id.
   */
  List<ToolCall> record(ModelTurnResult turn, int turnStep, AgentSpec spec) {
    if (turn.compaction() != null) {
      session.checkpoints.compactionTaken(
          new StepRecord(
              StepRecord.COMPACTION,
              turn.compaction().policies(),
              turn.startedAt(),
              turn.startedAt(),
              null,
              null,
              turn.compaction().summary()));
    }
    session.checkpoints.modelTurnTaken(
        new StepRecord(
            StepRecord.MODEL,
            spec.model(),
            turn.startedAt(),
            turn.finishedAt(),
            turn.usage(),
            turn.outputError() == null
                ? null
                : FailureTypes.INVALID_OUTPUT + ": " + turn.outputError(),
            null));
    progress.turnTaken(turn.usage(), turn.text());
    state.usageAdded(turn.usage());
    List<ToolCall> calls = withIds(turn.toolCalls(), turnStep);
    state.transcript().add(Message.assistant(turn.text(), calls));
    boolean answered = calls.isEmpty() && !session.inbox.hasInterjections();
    String reason =
        turn.finishReason() != null
            ? turn.finishReason()
            : calls.isEmpty() ? FinishReason.STOP : FinishReason.TOOL_CALLS;
    if (!calls.isEmpty()) {
      session.checkpoints.saveWithNextTurn(turnStep, RunStatus.IN_PROGRESS, reason);
    } else {
      RunStatus entryStatus =
          !answered
              ? RunStatus.IN_PROGRESS
              : turn.outputError() != null ? RunStatus.FAILED : RunStatus.FINISHED;
      session.checkpoints.save(turnStep, entryStatus, reason);
    }
    return calls;
  }

  /**
   * The turn failed for good with {@code error}: its step, with what the model streamed before the
   * failure and the worker's times when the failure carries them.
   */
  void failed(AgentSpec spec, ErrorInfo error, ModelFailureDetails details) {
    session.checkpoints.modelTurnTaken(
        new StepRecord(
            StepRecord.MODEL,
            spec.model(),
            details == null ? null : details.startedAt(),
            details == null ? null : details.finishedAt(),
            null,
            error.code() + ": " + error.message(),
            details == null ? null : details.partialText()));
  }

  private ModelTurnRequest request(AgentSpec spec, int turnStep, TurnSaves saves) {
    return new ModelTurnRequest(
        session.id(),
        spec.name(),
        progress.run(),
        turnStep,
        state.step(),
        state.transcript().stored(),
        state.transcript().unsaved(),
        state.transcript().chain(),
        Workflow.getInfo().getFirstExecutionRunId(),
        spec.fingerprint(),
        saves);
  }

  /** Gives every call an id: the provider's, or one derived from the step and position. */
  private static List<ToolCall> withIds(List<ToolCall> calls, int turnStep) {
    List<ToolCall> named = new ArrayList<>(calls.size());
    for (int i = 0; i < calls.size(); i++) {
      ToolCall call = calls.get(i);
      String id =
          call.id() != null && !call.id().isBlank() ? call.id() : "call_" + turnStep + "_" + i;
      named.add(new ToolCall(id, call.name(), call.arguments()));
    }
    return named;
  }
}
