package io.durableagents.workflow.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.ToolCall;
import io.durableagents.session.Approval;
import io.durableagents.session.ApprovalStatus;
import io.durableagents.session.RunStatus;
import io.durableagents.session.StepRecord;
import io.durableagents.session.internal.ApprovalRecord;
import io.durableagents.workflow.internal.activity.AgentSpec;
import io.durableagents.workflow.internal.activity.CallCheck;
import io.durableagents.workflow.internal.activity.ToolOutcome;
import io.durableagents.workflow.internal.activity.ToolSpec;
import io.durableagents.workflow.internal.wire.Decision;
import io.durableagents.workflow.internal.wire.ErrorResults;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The tool calls of one assistant turn. Every call gets exactly one result, recorded in call order.
 * Runnable calls run as activities, up to {@code toolConcurrency} at a time; a gated call is a
 * barrier: the calls before it finish, the run pauses for the decision, and the calls after it
 * start only once it has its result.
 */
final class ToolBatch {
  private final Session session;
  private final SessionState state;
  private final AgentRun run;
  private final AgentSpec spec;
  private final List<ToolCall> calls;
  private final List<CallCheck> checks;
  private final ToolRunner runner;
  private final JsonNode[] outcomes;

  /** What tool hooks did to each call (null: nothing), shown on its tool message. */
  private final String[] hookNotes;

  /** The outcome a worker reported for each call, with its times (null: no worker ran it). */
  private final ToolOutcome[] ran;

  /**
   * Each call's business-state updates, applied in call order once the calls before have results.
   */
  private final List<List<JsonNode>> stateUpdates;

  private int recorded;
  private int stateApplied;

  /** Whether the batch wrote its waiting entries before a sub-agent call. */
  private boolean savedForSubAgents;

  ToolBatch(
      Session session, AgentRun run, AgentSpec spec, List<ToolCall> calls, List<CallCheck> checks) {
    this.session = session;
    this.state = session.state;
    this.run = run;
    this.spec = spec;
    this.calls = calls;
    this.checks = checks == null ? List.of() : checks;
    // A batch carried over continue-as-new finds the calls before it recorded: the same
    // position, so the same idempotency key, as before the hand-over.
    this.runner =
        new ToolRunner(
            session.stubs,
            spec,
            session.id(),
            run.number(),
            run.trigger(),
            run.progress().recordedCalls(),
            new SubAgentCall(session, run, spec));
    this.outcomes = new JsonNode[calls.size()];
    this.hookNotes = new String[calls.size()];
    this.ran = new ToolOutcome[calls.size()];
    this.stateUpdates = new ArrayList<>();
    for (int i = 0; i < calls.size(); i++) {
      stateUpdates.add(List.of());
    }
  }

  void execute() {
    List<Promise<JsonNode>> inFlight = new ArrayList<>();
    int concurrency = Math.max(1, spec.toolConcurrency());
    for (int i = 0; i < calls.size(); i++) {
      ToolCall call = calls.get(i);
      JsonNode known = runner.knownResult(call, check(i));
      if (known != null) {
        outcomes[i] = known;
        continue;
      }
      if (check(i).needsApproval()) {
        awaitAll(inFlight);
        recordPrefix(i);
        outcomes[i] = decideAndRun(i);
        recordPrefix(i + 1);
        continue;
      }
      while (inFlight.size() >= concurrency) {
        Promise.anyOf(inFlight).get();
        inFlight.removeIf(Promise::isCompleted);
      }
      int index = i;
      applyStateUpdates();
      if (!savedForSubAgents && spec.tool(call.name()).isSubAgent()) {
        saveBeforeWaitingOnSubAgents();
      }
      inFlight.add(
          runner
              .run(call, index, state.businessState())
              .thenApply(outcome -> settleCall(index, outcome)));
    }
    awaitAll(inFlight);
    recordPrefix(calls.size());
  }

  /**
   * Writes the run's entries that wait for a later write before the batch's first sub-agent call
   * starts: the parent waits on its child for as long as the child takes, and meanwhile its history
   * and session row must be in the store ({@link ChangeIds#SUB_AGENT_WAIT_SAVES}).
   */
  private void saveBeforeWaitingOnSubAgents() {
    savedForSubAgents = true;
    if (Workflow.getVersion(ChangeIds.SUB_AGENT_WAIT_SAVES, Workflow.DEFAULT_VERSION, 1)
        != Workflow.DEFAULT_VERSION) {
      session.checkpoints.flush();
    }
  }

  /** After a cancel: every call without a result gets {@code {"error": "cancelled"}}. */
  void fillCancelled() {
    for (int i = recorded; i < calls.size(); i++) {
      if (outcomes[i] == null) {
        outcomes[i] = ErrorResults.of(ErrorResults.CANCELLED, null);
      }
    }
    recordPrefix(calls.size());
  }

  /** The recorded check of call {@code index}; runnable when none was recorded. */
  private CallCheck check(int index) {
    return index < checks.size() ? checks.get(index) : CallCheck.RUNNABLE;
  }

  private static void awaitAll(List<Promise<JsonNode>> inFlight) {
    for (Promise<JsonNode> promise : inFlight) {
      promise.get();
    }
    inFlight.clear();
  }

  private JsonNode settleCall(int index, ToolOutcome outcome) {
    ran[index] = outcome;
    outcomes[index] = outcome.result();
    hookNotes[index] = outcome.hookNote();
    stateUpdates.set(index, outcome.stateUpdates());
    applyStateUpdates();
    return outcome.result();
  }

  /**
   * Applies the state updates of the calls that have results, in call order, up to the first call
   * still without one: a call sees the updates of every call before it that has finished.
   */
  private void applyStateUpdates() {
    for (; stateApplied < calls.size() && outcomes[stateApplied] != null; stateApplied++) {
      stateUpdates.get(stateApplied).forEach(state::businessStatePatched);
    }
  }

  /** Appends the results of calls {@code [recorded, upTo)} to the transcript, in order. */
  private void recordPrefix(int upTo) {
    applyStateUpdates();
    for (; recorded < upTo; recorded++) {
      ToolCall call = calls.get(recorded);
      state.transcript().add(Message.toolResult(call, outcomes[recorded], hookNotes[recorded]));
      session.checkpoints.toolCallTaken(
          run.progress().recordedCalls(), step(call, outcomes[recorded], ran[recorded]));
      run.progress().callRecorded(call, outcomes[recorded]);
    }
  }

  /** The step record of a call's result: timed when a worker ran it ({@code ran} not null). */
  private static StepRecord step(ToolCall call, JsonNode result, ToolOutcome ran) {
    String error;
    if (ran != null) {
      error = ran.errorCode();
    } else {
      // Not run (unknown tool, invalid arguments, refused, cancelled): always a structured error.
      error = result != null && result.hasNonNull("error") ? result.get("error").asText() : null;
    }
    return new StepRecord(
        StepRecord.TOOL,
        call.name(),
        ran == null ? null : ran.startedAt(),
        ran == null ? null : ran.finishedAt(),
        null,
        error,
        null);
  }

  /**
   * Pauses for a decision on call {@code index}, then runs it or records why it did not run. A wait
   * carried over continue-as-new keeps its approval id and expiry.
   */
  private JsonNode decideAndRun(int index) {
    ToolCall call = calls.get(index);
    long now = Workflow.currentTimeMillis();
    Approval approval = run.takeResumedApproval(call);
    int pausedAt;
    Promise<Long> notified = null;
    if (approval != null) {
      pausedAt = run.resumedPausedAt();
    } else {
      approval =
          new Approval(
              session.stableIds()
                  ? runner.approvalId(call, index)
                  : Workflow.randomUUID().toString(),
              call.id(),
              call.name(),
              call.arguments(),
              now,
              now + spec.approvalTimeoutMs());
      session.approvals.opened(approval);
      pausedAt = state.step() + 1;
      session.checkpoints.save(
          pausedAt,
          RunStatus.AWAITING_APPROVAL,
          FinishReason.AWAITING_APPROVAL,
          List.of(
              Checkpoints.approvalRecord(
                  approval, run.number(), pausedAt, ApprovalStatus.PENDING, null, 0)));
      session.subAgents.approvalOpened(approval);
      if (spec.notifier()) {
        notified = session.stubs.notifyLater(session.id(), spec.name(), approval);
      }
    }
    Decision decision = awaitDecision(index, approval, pausedAt, now, notified);
    long decidedAt = Workflow.currentTimeMillis();
    ApprovalStatus approvalState =
        decision == null
            ? ApprovalStatus.EXPIRED
            : decision.approved() ? ApprovalStatus.APPROVED : ApprovalStatus.REJECTED;
    JsonNode refused = null;
    if (decision == null) {
      refused = ErrorResults.of(ErrorResults.APPROVAL_EXPIRED, null);
    } else if (!decision.approved()) {
      refused = ErrorResults.rejected(decision.note());
    }
    if (refused != null) {
      outcomes[index] = refused;
      recordPrefix(index + 1);
    }
    // The decision lands on the entry that asked for it. An approved call that runs as an
    // activity starts together with that save instead of after it: nothing it does reads it.
    List<ApprovalRecord> decisionRecord =
        List.of(
            Checkpoints.approvalRecord(
                approval, run.number(), pausedAt, approvalState, decision, decidedAt));
    session.subAgents.approvalClosed(approval, approvalState);
    ToolSpec tool = spec.tool(call.name());
    if (refused == null && !tool.local() && !tool.isSubAgent()) {
      session.checkpoints.saveAlongsideNextCall(
          pausedAt, RunStatus.IN_PROGRESS, FinishReason.AWAITING_APPROVAL, decisionRecord);
    } else {
      session.checkpoints.save(
          pausedAt, RunStatus.IN_PROGRESS, FinishReason.AWAITING_APPROVAL, decisionRecord);
    }
    if (refused != null) {
      return refused;
    }
    applyStateUpdates();
    ToolOutcome outcome = runner.run(call, index, state.businessState()).get();
    ran[index] = outcome;
    stateUpdates.set(index, outcome.stateUpdates());
    hookNotes[index] = outcome.hookNote();
    return outcome.result();
  }

  /**
   * Waits, with the run's timer disarmed, for the decision on {@code approval} (saved at {@code
   * pausedAt}) until it expires; hands the wait over as it stands when the workflow run grows long,
   * but not before the approval's notifier ({@code notified}, null: none started here) has its
   * result in this run: a run that continued as new before it would lose the notification, or its
   * time, with the activity. Answers the decision, or null when the approval expired.
   */
  private Decision awaitDecision(
      int index, Approval approval, int pausedAt, long now, Promise<Long> notified) {
    session.approvals.pauseSaved(approval);
    state.statusChanged(RunStatus.AWAITING_APPROVAL);
    session.show();
    run.timer().disarm();
    BooleanSupplier handOver = session.handover::due;
    if (notified != null && session.handover.waitsForNotifier()) {
      handOver = () -> notified.isCompleted() && session.handover.due();
    }
    boolean stopped =
        session.approvals.awaitDecision(
            Duration.ofMillis(Math.max(0, approval.expiresAt() - now)), handOver);
    if (stopped && !session.approvals.hasDecision()) {
      // Still waiting, but this workflow run is long: hand the wait over as it stands.
      session.continueAsNew(
          () ->
              run.snapshot(
                  calls.subList(index, calls.size()),
                  checks.subList(Math.min(index, checks.size()), checks.size()),
                  approval,
                  pausedAt));
    }
    Decision decision = session.approvals.close();
    state.statusChanged(RunStatus.IN_PROGRESS);
    session.show();
    run.timer().arm();
    return decision;
  }
}
