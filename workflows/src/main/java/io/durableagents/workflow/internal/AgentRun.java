package io.durableagents.workflow.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.ToolCall;
import io.durableagents.session.Approval;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.ErrorInfo;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.Limits;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.TriggerEnvelope;
import io.durableagents.workflow.internal.activity.AgentSpec;
import io.durableagents.workflow.internal.activity.CallCheck;
import io.durableagents.workflow.internal.activity.ForkState;
import io.durableagents.workflow.internal.activity.ModelTurnResult;
import io.durableagents.workflow.internal.activity.RunResolution;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.durableagents.workflow.internal.wire.SessionSnapshot;
import io.durableagents.workflow.internal.wire.UnfinishedRun;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Workflow;
import java.util.List;
import org.slf4j.Logger;

/**
 * One run: the loop of model turns and tool batches that one message triggers, from resolving the
 * agent to a settled {@link RunResult}. After each model turn and each tool batch a checkpoint
 * entry is saved; budgets (steps, tokens, wall clock) end the loop; a cancel settles it. The run
 * keeps the definition it resolved when it started (its {@link AgentSpec}, recorded in the history,
 * and the definition the worker stored under its fingerprint) for all its turns, across approvals,
 * worker changes, continue-as-new and forks. {@link ModelTurns} sends and records its turns, {@link
 * ToolBatch} runs a turn's calls, {@link RunSettlement} ends it.
 */
final class AgentRun {
  private static final Logger log = Workflow.getLogger(AgentRun.class);

  private final Session session;
  private final SessionState state;
  private final List<Message> inputs;
  private final Message startInput;
  private final List<ToolCall> resumeCalls;
  private final List<CallCheck> resumeChecks;
  private final RunProgress progress;
  private final ModelTurns turns;
  private final RunSettlement settlement;

  /** The run configuration the run was sent with (null: none). */
  private final JsonNode runConfig;

  /** The definition a forked run continues (null: resolve the current one). */
  private final String recordedFingerprint;

  /** The definition carried over continue-as-new (null: resolve it). */
  private final AgentSpec carriedSpec;

  private final long timeSpentMs;

  /** The workflow time the run started, or was picked up after continue-as-new. */
  private long startedAt;

  /** A failed or cancelled run that a send resumed: its first entry says so. */
  private final boolean resumed;

  /** A wait point carried over continue-as-new: its call is the first of {@code resumeCalls}. */
  private Approval resumedApproval;

  private int resumedPausedAt;

  /** The envelope that started this run, if a trigger did: handed to its tools. */
  private TriggerEnvelope trigger;

  /** The concurrency key the run was sent with (null: the agent's default, if any). */
  private String requestedKey;

  /** The lease of the run's concurrency key (null: the run has none). */
  private RunLease lease;

  /** The run's model-turn budget, once its definition is resolved. */
  private int maxSteps;

  private boolean cancelRequested;
  private CancellationScope scope;
  private RunTimer timer;
  private ToolBatch batch;

  /** A run of new input, sent with {@code runConfig} (null: none). */
  AgentRun(Session session, List<Message> inputs, JsonNode runConfig) {
    this.session = session;
    this.state = session.state;
    this.progress = new RunProgress(state.nextRun());
    this.inputs = inputs;
    this.startInput = inputs.isEmpty() ? null : inputs.get(0);
    this.resumeCalls = List.of();
    this.resumeChecks = List.of();
    this.runConfig = runConfig;
    // A sub-agent's run uses the definition its parent's run recorded for it.
    this.recordedFingerprint =
        session.subAgents.isSubAgent() ? session.subAgents.origin().agentFingerprint() : null;
    this.carriedSpec = null;
    this.timeSpentMs = 0;
    this.resumed = false;
    this.turns = new ModelTurns(session, progress, null);
    this.settlement = new RunSettlement(session, progress);
  }

  /**
   * A fork's run: continues the run of the fork's entry, with its definition ({@code fork}'s
   * fingerprint and run configuration) and the budgets it has left; first resolves the calls
   * recorded without a result, then takes its inputs.
   */
  AgentRun(Session session, List<Message> inputs, ForkState fork) {
    this.session = session;
    this.state = session.state;
    this.progress = new RunProgress(state.nextRun(), fork.stepsUsedInRun(), fork.runUsage());
    this.inputs = inputs;
    this.startInput = inputs.isEmpty() ? null : inputs.get(0);
    this.resumeCalls = fork.pendingCalls();
    this.resumeChecks = fork.checks();
    this.runConfig = fork.runConfig();
    this.recordedFingerprint = fork.fingerprint();
    this.carriedSpec = null;
    this.timeSpentMs = 0;
    this.resumed = false;
    this.turns = new ModelTurns(session, progress, null);
    this.settlement = new RunSettlement(session, progress);
  }

  /** The run in progress when the session continued as new, picked up where it stood. */
  AgentRun(Session session, SessionSnapshot.RunSnapshot snapshot) {
    this.session = session;
    this.state = session.state;
    this.progress =
        new RunProgress(
            snapshot.run(),
            snapshot.steps(),
            snapshot.usage(),
            snapshot.toolCalls(),
            snapshot.lastText());
    this.inputs = List.of();
    this.startInput = snapshot.startInput();
    this.resumeCalls = snapshot.resumeCalls();
    this.resumeChecks = snapshot.resumeChecks();
    this.resumedApproval = snapshot.approval();
    this.resumedPausedAt = snapshot.pausedAt();
    this.trigger = snapshot.trigger();
    this.runConfig = snapshot.runConfig();
    this.recordedFingerprint = null;
    this.carriedSpec = snapshot.spec();
    this.turns = new ModelTurns(session, progress, snapshot.drift());
    this.settlement = new RunSettlement(session, progress);
    this.timeSpentMs = snapshot.timeSpentMs();
    if (snapshot.concurrencyKey() != null) {
      this.lease = RunLease.held(session, snapshot.concurrencyKey(), snapshot.run());
      state.concurrencyKeyKnown(snapshot.concurrencyKey());
    }
    this.resumed = false;
  }

  /**
   * A run that failed or was cancelled, resumed by a send that repeated its input ({@link
   * RunResumes}): it keeps its number, definition, configuration and trigger, and goes on from the
   * transcript as it stands with the steps, tokens and time it had left ({@code ended}: the result
   * it ended with). Its input is not added again.
   */
  AgentRun(Session session, UnfinishedRun unfinished, RunResult ended) {
    this.session = session;
    this.state = session.state;
    this.progress =
        new RunProgress(
            unfinished.run(), ended.steps(), ended.usage(), ended.toolCalls(), ended.text());
    this.inputs = List.of();
    this.startInput = unfinished.inputs().isEmpty() ? null : unfinished.inputs().get(0);
    this.resumeCalls = List.of();
    this.resumeChecks = List.of();
    this.trigger = unfinished.trigger();
    this.runConfig = unfinished.runConfig();
    this.recordedFingerprint = null;
    this.carriedSpec = unfinished.spec();
    this.turns = new ModelTurns(session, progress, unfinished.drift());
    this.settlement = new RunSettlement(session, progress);
    this.timeSpentMs = unfinished.timeSpentMs();
    this.requestedKey = unfinished.concurrencyKey();
    this.resumed = true;
  }

  int number() {
    return progress.run();
  }

  Message startInput() {
    return startInput;
  }

  RunProgress progress() {
    return progress;
  }

  TriggerEnvelope trigger() {
    return trigger;
  }

  boolean cancelRequested() {
    return cancelRequested;
  }

  RunTimer timer() {
    return timer;
  }

  /** What the run's checkpoint entries record of it. */
  CheckpointSave.RunInfo info() {
    return new CheckpointSave.RunInfo(
        progress.steps(), progress.usage(), runConfig, turns.drift(), startedAt);
  }

  /** The first trigger envelope that reaches the run is the one its tools get. */
  void adoptTrigger(TriggerEnvelope envelope) {
    if (trigger == null) {
      trigger = envelope;
    }
  }

  /** The run goes with {@code key} as its concurrency key (null: the agent's default, if any). */
  void requestConcurrencyKey(String key) {
    requestedKey = key;
  }

  RunLease lease() {
    return lease;
  }

  /**
   * The approval carried over continue-as-new for {@code call}, with the step it was saved at;
   * taken once, null for any other call.
   */
  Approval takeResumedApproval(ToolCall call) {
    if (resumedApproval == null || !resumedApproval.toolCallId().equals(call.id())) {
      return null;
    }
    Approval approval = resumedApproval;
    resumedApproval = null;
    return approval;
  }

  int resumedPausedAt() {
    return resumedPausedAt;
  }

  void cancel(String reason) {
    log.info("cancel on {} run {}: {}", session.id(), number(), reason);
    cancelRequested = true;
    if (scope != null) {
      scope.cancel(reason);
    }
  }

  /** Where the run stands, for a sender answered at a continue-as-new boundary. */
  RunResult progressResult() {
    return settlement.inProgress();
  }

  /** The run's result while it waits for a decision. */
  RunResult pausedResult() {
    return settlement.paused();
  }

  /**
   * The run's state at a continue-as-new boundary: the calls of its current turn without a result
   * ({@code pendingCalls}, the first of which may wait on {@code approval}, saved at {@code
   * pausedAt}).
   */
  SessionSnapshot.RunSnapshot snapshot(
      List<ToolCall> pendingCalls, List<CallCheck> pendingChecks, Approval approval, int pausedAt) {
    return new SessionSnapshot.RunSnapshot(
        number(),
        progress.steps(),
        progress.usage(),
        progress.toolCallsCopy(),
        progress.lastText(),
        startInput,
        session.inbox.interjectionsCopy(),
        pendingCalls,
        pendingChecks,
        approval,
        pausedAt,
        trigger,
        state.spec(),
        runConfig,
        turns.drift(),
        timer == null ? timeSpentMs : timer.spentMs(),
        inputsBeyondStart(session.resumes.runInputs()),
        session.resumes.runKey(),
        lease == null ? null : lease.key());
  }

  /**
   * The run's inputs for its snapshot: none when they are its start input alone, carried anyway.
   */
  private List<Message> inputsBeyondStart(List<Message> runInputs) {
    return runInputs.size() == 1 && runInputs.get(0).equals(startInput) ? List.of() : runInputs;
  }

  /**
   * The run as a send may resume it, once it failed or was cancelled at workflow time {@code
   * settledAt}: it started from {@code runInputs}, sent with {@code key}.
   */
  UnfinishedRun unfinished(List<Message> runInputs, String key, long settledAt) {
    return new UnfinishedRun(
        number(),
        runInputs,
        key,
        settledAt,
        // No timer yet: the run failed before it resolved its definition.
        timer == null ? null : state.spec(),
        runConfig,
        trigger,
        turns.drift(),
        timer == null ? timeSpentMs : timer.spentMs(),
        concurrencyKey());
  }

  /** The run's concurrency key (null: none, or not known before its definition resolved). */
  private String concurrencyKey() {
    return lease != null ? lease.key() : requestedKey;
  }

  RunResult execute() {
    startedAt = Workflow.currentTimeMillis();
    state.runStarted(number());
    session.show();
    if (resumeCalls.isEmpty()) {
      inputs.forEach(state.transcript()::add);
    }
    RunResult[] outcome = new RunResult[1];
    scope = Workflow.newCancellationScope(() -> outcome[0] = loop());
    try {
      scope.run();
    } catch (CanceledFailure e) {
      // the run was cancelled; settled below
    } catch (ActivityFailure e) {
      if (!cancelRequested) {
        throw e;
      }
    }
    scope = null;
    RunResult result;
    if (outcome[0] != null) {
      result = outcome[0];
    } else {
      ToolBatch unfinished = batch;
      batch = null;
      result = settlement.cancelled(timer, unfinished);
    }
    if (lease != null) {
      lease.release();
    }
    return result;
  }

  private RunResult loop() {
    AgentSpec spec;
    try {
      spec = carriedSpec != null ? carriedSpec : resolve();
    } catch (ActivityFailure failure) {
      unlessCancelled();
      return settlement.failed(Failures.errorOf(failure, FailureTypes.AGENT_UNAVAILABLE), timer);
    }
    state.agentResolved(spec);
    session.show();
    if (carriedSpec == null || resumed) {
      // A run carried over continue-as-new holds its lease already; a resumed run queues again.
      awaitLease(spec);
    }
    maxSteps = maxSteps(spec);
    timer =
        new RunTimer(
            spec.runTimeoutMs(),
            timeSpentMs,
            () -> cancel("run timeout of " + spec.runTimeoutMs() + " ms"));
    timer.arm();
    if (resumed) {
      // Nothing reads it before the next model turn, which carries it.
      session.checkpoints.saveWithNextTurn(
          state.step() + 1, RunStatus.IN_PROGRESS, FinishReason.RESUMED);
    }
    if (!resumeCalls.isEmpty()) {
      runBatch(spec, resumeCalls, resumeChecks);
      inputs.forEach(state.transcript()::add);
      session.checkpoints.save(state.step() + 1, RunStatus.IN_PROGRESS, FinishReason.TOOL_CALLS);
    }
    while (true) {
      unlessCancelled();
      if (session.handover.due()) {
        if (state.transcript().hasUnsaved()) {
          // The snapshot carries the transcript by reference only: the run's input, not saved
          // yet, is saved first, or the next workflow run would never see it.
          session.checkpoints.save(state.step() + 1, RunStatus.IN_PROGRESS, null);
        }
        session.continueAsNew(() -> snapshot(List.of(), List.of(), null, 0));
      }
      if (progress.steps() >= maxSteps) {
        return settlement.outOfBudget(FinishReason.MAX_STEPS, timer);
      }
      if (tokensLeft(spec) <= 0) {
        return settlement.outOfBudget(FinishReason.MAX_TOKENS, timer);
      }
      session.inbox.moveInterjectionsTo(state.transcript());
      int turnStep = state.step() + 1;
      ModelTurnResult turn;
      try {
        turn = turns.send(spec, turnStep);
      } catch (ActivityFailure failure) {
        unlessCancelled();
        ErrorInfo error = Failures.errorOf(failure, FailureTypes.MODEL_ERROR);
        if (turns.retries(error)) {
          continue;
        }
        turns.failed(spec, error, Failures.modelDetailsOf(failure));
        session.checkpoints.save(turnStep, RunStatus.FAILED, FinishReason.ERROR);
        return settlement.failed(error, timer);
      }
      List<ToolCall> calls = turns.record(turn, turnStep, spec);
      if (calls.isEmpty()) {
        if (!session.inbox.hasInterjections()) {
          return settlement.answered(turn, timer);
        }
        continue;
      }
      runBatch(spec, calls, turn.checks());
      session.checkpoints.saveWithNextTurn(
          state.step() + 1, RunStatus.IN_PROGRESS, FinishReason.TOOL_CALLS);
    }
  }

  /**
   * The run's model-turn budget: the session's override, else the agent's; a sub-agent's run gets
   * no more than its parent's run had left.
   */
  private int maxSteps(AgentSpec spec) {
    return maxSteps(session.start.maxSteps(), spec, session.subAgents.isSubAgent());
  }

  /**
   * The model-turn budget of a run of {@code spec} with the session's {@code override} (null or not
   * positive: none); a sub-agent's run takes no more than its agent declares.
   */
  static int maxSteps(Integer override, AgentSpec spec, boolean subAgent) {
    if (override == null || override <= 0) {
      return spec.maxSteps();
    }
    int capped = Math.min(override, Limits.MAX_STEPS);
    return subAgent ? Math.min(capped, spec.maxSteps()) : capped;
  }

  /** The model turns the run has left (its sub-agents' turns count against it). */
  int stepsLeft() {
    return maxSteps - progress.steps();
  }

  /**
   * The tokens the run has left of the agent's budget and, for a sub-agent's run, of what its
   * parent's run had left; {@link Long#MAX_VALUE} without a budget.
   */
  long tokensLeft(AgentSpec spec) {
    long budget = spec.maxTokens();
    if (session.subAgents.isSubAgent() && session.subAgents.origin().maxTokens() > 0) {
      long parentLeft = session.subAgents.origin().maxTokens();
      budget = budget > 0 ? Math.min(budget, parentLeft) : parentLeft;
    }
    return budget > 0 ? budget - progress.usage().total() : Long.MAX_VALUE;
  }

  /**
   * The run's definition, once: with its configuration, or the one a fork's entry recorded. Runs of
   * histories recorded before the definitions were recorded resolve by name.
   */
  private AgentSpec resolve() {
    int version = Workflow.getVersion(ChangeIds.RUN_DEFINITION, Workflow.DEFAULT_VERSION, 1);
    if (version == Workflow.DEFAULT_VERSION) {
      return session.stubs.localAgents().resolveAgent(state.agentName());
    }
    return session
        .stubs
        .localAgents()
        .resolveRun(new RunResolution(state.agentName(), runConfig, recordedFingerprint, trigger));
  }

  /**
   * With a concurrency key (the one sent, else the agent's for this run), waits for the key's lease
   * before the run's first model turn; the wait does not count against the run's timeout.
   */
  private void awaitLease(AgentSpec spec) {
    String key = requestedKey != null ? requestedKey : spec.concurrencyKey();
    if (key == null) {
      return;
    }
    state.concurrencyKeyKnown(key);
    lease = RunLease.of(session, key, number());
    lease.acquire();
  }

  private void runBatch(AgentSpec spec, List<ToolCall> calls, List<CallCheck> checks) {
    batch = new ToolBatch(session, this, spec, calls, checks);
    batch.execute();
    batch = null;
  }

  private void unlessCancelled() {
    if (cancelRequested) {
      throw new CanceledFailure("run " + number() + " of " + session.id() + " was cancelled");
    }
  }
}
