package io.durableagents.workflow.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.workflow.AgentSessionWorkflow;
import io.durableagents.workflow.Approval;
import io.durableagents.workflow.Decision;
import io.durableagents.workflow.DecisionOutcome;
import io.durableagents.workflow.ErrorInfo;
import io.durableagents.workflow.ErrorResults;
import io.durableagents.workflow.FinishReason;
import io.durableagents.workflow.ForkOutcome;
import io.durableagents.workflow.InputChecks;
import io.durableagents.workflow.Limits;
import io.durableagents.workflow.MergePatch;
import io.durableagents.workflow.Message;
import io.durableagents.workflow.Rejection;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.RunStatus;
import io.durableagents.workflow.SendRequest;
import io.durableagents.workflow.SendRules;
import io.durableagents.workflow.SessionErrors;
import io.durableagents.workflow.SessionSnapshot;
import io.durableagents.workflow.SessionStart;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.ToolCall;
import io.durableagents.workflow.ToolCallRecord;
import io.durableagents.workflow.TriggerEnvelope;
import io.durableagents.workflow.Usage;
import io.durableagents.workflow.activity.AgentSpec;
import io.durableagents.workflow.activity.ApprovalRecord;
import io.durableagents.workflow.activity.CallCheck;
import io.durableagents.workflow.activity.CheckpointSave;
import io.durableagents.workflow.activity.ForkActivities;
import io.durableagents.workflow.activity.ForkRequest;
import io.durableagents.workflow.activity.ForkState;
import io.durableagents.workflow.activity.ModelTurnRequest;
import io.durableagents.workflow.activity.ModelTurnResult;
import io.durableagents.workflow.activity.ToolOutcome;
import io.durableagents.workflow.activity.TurnSaves;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.failure.TemporalFailure;
import io.temporal.failure.TimeoutFailure;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;

/**
 * The session workflow: waits for input, runs the agent loop for it (model turn, tool batch,
 * checkpoint after each), settles the run and waits for the next message.
 *
 * <p>Handlers only record input and decisions and wait; the loop itself lives in the workflow
 * method, so handlers never race on activities.
 */
public class AgentSessionWorkflowImpl implements AgentSessionWorkflow {
  private static final Logger log = Workflow.getLogger(AgentSessionWorkflowImpl.class);
  private static final int KEPT_RESULTS = 16;
  private static final int KEPT_DECIDED_IDS = 1000;
  /** Model-turn failure type for an unreachable store: waited out, never a failed run. */
  private static final String STORE_UNAVAILABLE = "store_unavailable";
  /** Bound of one send's text: well under Temporal's 2 MB payload limit. */
  static final int MAX_INPUT_CHARS = Limits.INPUT_CHARS;

  private final SessionStart start;
  private final String sessionId;
  private final ActivityStubs stubs = new ActivityStubs();
  private final Transcript transcript = new Transcript();
  private final SessionVisibility visibility;

  /** Inputs waiting for the next run. */
  private final List<Message> queuedInputs = new ArrayList<>();
  /** The trigger envelope of the queued inputs, for the tools of the run they start. */
  private TriggerEnvelope queuedTrigger;
  /** Inputs that arrived during the active run; placed after the current batch's results. */
  private final List<Message> interjections = new ArrayList<>();
  /** Results of recent runs, by run number, for the handlers waiting on them. */
  private final Map<Integer, RunResult> results = new LinkedHashMap<>();
  /** Approval ids decided or expired: a later decision for them is a duplicate. */
  private final Set<String> closedApprovals = new LinkedHashSet<>();

  private AgentSpec spec;
  /** The session's agent: as started, or the source's for a fork (null: the worker's default). */
  private String agentName;
  private String status = RunStatus.IDLE;
  private int lastRun;
  private int activeRun;
  private int settledRun;
  private int step;
  private Usage totalUsage = Usage.ZERO;
  private RunResult lastResult;
  private AgentRun currentRun;
  /**
   * The JSON the session's tools read and update (null until one does): merge patches from tool
   * results are applied in call order as the results are recorded.
   */
  private JsonNode businessState;

  private Approval pendingApproval;
  private Decision pendingDecision;
  /** True once the pause is saved: only then do waiting senders see it. */
  private boolean pauseSaved;
  /** True until a forked session's transcript is prepared: senders wait for it. */
  private boolean preparingFork;
  /** Why this fork could not be made, once known: its creator's update answers it. */
  private String forkRefusal;
  private int ignoredDecisions;
  /** True while the session hands over to its next workflow run: waiting senders re-attach. */
  private boolean continuing;
  /** Updates received by this workflow run; a real server allows 2,000 per run. */
  private int updatesThisRun;
  /** How checkpoint entries reach the store: at once, with the next turn, held, or alongside. */
  private final CheckpointWrites writes = new CheckpointWrites(stubs);

  @WorkflowInit
  public AgentSessionWorkflowImpl(SessionStart start) {
    this.start = start == null ? new SessionStart(null, null, null) : start;
    this.sessionId = Workflow.getInfo().getWorkflowId();
    this.preparingFork = this.start.fork() != null;
    this.agentName = this.start.agent();
    this.visibility =
        new SessionVisibility(this.start.fork() == null ? null : this.start.fork().parentSessionId());
    if (this.start.continued() != null) {
      restore(this.start.continued());
    }
  }

  @Override
  public void run(SessionStart ignored) {
    if (start.fork() == null && start.continued() == null && !receivedInput() && !awaitFirstSend()) {
      log.info("{} completes without a session: no send reached it within {}", sessionId, FIRST_SEND_GRACE);
      return;
    }
    showStatus();
    if (start.fork() != null) {
      if (!startFork()) {
        return;
      }
    } else if (start.continued() != null && start.continued().run() != null) {
      currentRun = new AgentRun(start.continued().run());
      RunResult result = currentRun.execute();
      currentRun = null;
      settle(result);
    }
    while (true) {
      Workflow.await(() -> !queuedInputs.isEmpty() || shouldContinueAsNew());
      if (queuedInputs.isEmpty()) {
        continueAsNew(() -> snapshot(null));
      }
      List<Message> inputs = new ArrayList<>(queuedInputs);
      queuedInputs.clear();
      currentRun = new AgentRun(inputs);
      currentRun.adoptTrigger(queuedTrigger);
      queuedTrigger = null;
      RunResult result = currentRun.execute();
      currentRun = null;
      settle(result);
    }
  }

  /**
   * A forked session: the worker copies the entry's patched transcript into the store, then the
   * fork continues the entry's run with its remaining budget, running first the calls that have
   * no result and then the appended input. False when the fork is refused: the workflow completes.
   */
  private boolean startFork() {
    String problem = InputChecks.forkProblem(start.fork());
    if (problem != null) {
      // Refused before anything is written, naming the limit.
      refuseFork(problem);
      return false;
    }
    ForkState fork;
    try {
      fork =
          stubs
              .forks()
              .prepareFork(
                  new ForkRequest(
                      sessionId,
                      Workflow.getInfo().getFirstExecutionRunId(),
                      start.agent(),
                      start.fork(),
                      Workflow.currentTimeMillis()));
    } catch (ActivityFailure e) {
      refuseFork(e.getCause() instanceof ApplicationFailure cause ? cause.getOriginalMessage() : e.getMessage());
      return false;
    }
    transcript.restore(fork.messageCount(), fork.transcriptHash());
    agentName = fork.agent();
    step = fork.step();
    totalUsage = fork.usage();
    businessState = fork.businessState();
    lastRun = Math.max(0, fork.run() - 1);
    String appendInput = start.fork().patch() == null ? null : start.fork().patch().appendInput();
    List<Message> inputs =
        appendInput == null || appendInput.isEmpty() ? List.of() : List.of(Message.user(appendInput));
    if (fork.pendingCalls().isEmpty() && inputs.isEmpty() && !fork.awaitsModel()) {
      lastRun = fork.run();
      visibility.agentKnown(fork.agent(), fork.searchAttributes());
      settle(
          new RunResult(
              sessionId, fork.run(), RunStatus.isSettled(fork.status()) ? fork.status() : RunStatus.FINISHED,
              fork.finishReason(), fork.lastText(), null, 0, Usage.ZERO, List.of(), null, null,
              step, transcript.size(), null));
      preparingFork = false;
      return true;
    }
    currentRun = new AgentRun(inputs, fork.pendingCalls(), fork.checks(), fork.stepsUsedInRun());
    RunResult result = currentRun.execute();
    currentRun = null;
    settle(result);
    return true;
  }

  /**
   * A fork that cannot be made: its creator's {@code forkPrepared} update is answered with the
   * reason, and the workflow completes without a session (it never had a run; its id may be used
   * again). Nothing failed, so nothing is logged as a failure.
   */
  private void refuseFork(String reason) {
    forkRefusal = reason;
    log.info("{} is no fork: {}", sessionId, reason);
    letOtherHandlersRun();
    Workflow.await(Workflow::isEveryHandlerFinished);
  }

  @Override
  public ForkOutcome forkPrepared() {
    Workflow.await(() -> !preparingFork || forkRefusal != null);
    return forkRefusal != null ? new ForkOutcome(forkRefusal, null) : new ForkOutcome(null, status());
  }

  /**
   * How long a session started without its first send waits for one before it completes, leaving
   * no session behind.
   */
  static final Duration FIRST_SEND_GRACE = Duration.ofMinutes(1);

  /**
   * A workflow started by an update-with-start whose send it did not get: the validator refused it
   * (Temporal creates the workflow before it validates the update), or the send was lost with a
   * first workflow task that never completed (its worker was killed before accepting it) and the
   * client sends it again. Waits {@link #FIRST_SEND_GRACE} for a send, so a resent one is taken by
   * this workflow: completing at once would have the resend start a new workflow, and its calls
   * new idempotency keys, although their side effects may have happened under the old ones.
   */
  private boolean awaitFirstSend() {
    return Workflow.await(FIRST_SEND_GRACE, () -> updatesThisRun > 0 || !queuedInputs.isEmpty());
  }

  /**
   * True when the workflow's first task brought an accepted send. The SDK runs the update handlers
   * of that task in the same pass as the workflow method; yielding once lets them run first.
   */
  private boolean receivedInput() {
    letOtherHandlersRun();
    return updatesThisRun > 0 || !queuedInputs.isEmpty();
  }

  // ---- continue-as-new --------------------------------------------------------------------

  private static final int MAX_UPDATES_PER_RUN = 1000;

  /** Past the event bound, past half the update limit, or when Temporal suggests it. */
  private boolean shouldContinueAsNew() {
    return Workflow.getInfo().isContinueAsNewSuggested()
        || Workflow.getInfo().getHistoryLength() > start.eventLimit()
        || updatesThisRun >= MAX_UPDATES_PER_RUN;
  }

  /**
   * Hands the session over to a new workflow run with its complete state. Waiting senders are
   * answered "continued" (they attach again), and no handler is running when it happens.
   */
  private void continueAsNew(java.util.function.Supplier<SessionSnapshot> snapshot) {
    writes.flush();
    continuing = true;
    Workflow.await(Workflow::isEveryHandlerFinished);
    log.info("{} continues as new after {} events", sessionId, Workflow.getInfo().getHistoryLength());
    Workflow.continueAsNew(start.continuedWith(snapshot.get(), agentName));
  }

  private SessionSnapshot snapshot(SessionSnapshot.RunSnapshot run) {
    return new SessionSnapshot(
        status,
        step,
        transcript.stored(),
        transcript.chain(),
        totalUsage,
        lastRun,
        lastResult,
        new ArrayList<>(closedApprovals),
        new ArrayList<>(queuedInputs),
        run,
        businessState);
  }

  private void restore(SessionSnapshot snapshot) {
    status = snapshot.status();
    step = snapshot.step();
    transcript.restore(snapshot.storedMessages(), snapshot.transcriptHash());
    totalUsage = snapshot.totalUsage() == null ? Usage.ZERO : snapshot.totalUsage();
    lastRun = snapshot.lastRun();
    lastResult = snapshot.lastResult();
    if (lastResult != null) {
      results.put(lastResult.run(), lastResult);
      settledRun = lastResult.run();
    }
    closedApprovals.addAll(snapshot.closedApprovals());
    queuedInputs.addAll(snapshot.queuedInputs());
    businessState = snapshot.businessState();
    SessionSnapshot.RunSnapshot run = snapshot.run();
    if (run != null) {
      activeRun = run.run();
      interjections.addAll(run.interjections());
      pendingApproval = run.approval();
      pauseSaved = pendingApproval != null;
    }
  }

  // ---- send -------------------------------------------------------------------------------

  @Override
  public void validateSend(SendRequest request) {
    if (request == null) {
      throw new IllegalArgumentException("send needs a request");
    }
    String triggerProblem = request.trigger() == null ? null : InputChecks.triggerProblem(request.trigger());
    if (triggerProblem != null) {
      throw Rejection.failure(SessionErrors.INVALID_INPUT, triggerProblem);
    }
    List<Message> inputs = newInputs(request);
    String problem = SendRules.problem(inputs);
    if (problem != null) {
      throw Rejection.failure(SessionErrors.INVALID_INPUT, problem);
    }
    if (!inputs.isEmpty() && pendingApproval != null) {
      throw Rejection.failure(
          SessionErrors.AWAITING_APPROVAL,
          "Session '" + sessionId + "' is awaiting approval " + pendingApproval.approvalId()
              + " for tool '" + pendingApproval.toolName() + "'; decide it before sending input.",
          sessionId,
          pendingApproval.approvalId());
    }
    if (inputs.isEmpty() && !preparingFork && activeRun == 0 && queuedInputs.isEmpty() && lastResult == null) {
      throw Rejection.failure(
          SessionErrors.NO_RUN,
          "Session '" + sessionId + "' has no run yet: send a non-empty input first.");
    }
  }

  @Override
  public RunResult send(SendRequest request) {
    updatesThisRun++;
    Workflow.await(() -> !preparingFork);
    List<Message> inputs = newInputs(request);
    if (request.trigger() != null) {
      if (currentRun != null && activeRun != 0) {
        currentRun.adoptTrigger(request.trigger());
      } else {
        queuedTrigger = request.trigger();
      }
    }
    int target;
    if (inputs.isEmpty()) {
      if (activeRun != 0) {
        target = activeRun;
      } else if (!queuedInputs.isEmpty()) {
        target = lastRun + 1;
      } else {
        return lastResult;
      }
    } else if (activeRun != 0) {
      for (Message input : inputs) {
        if (currentRun != null && input.equals(currentRun.startInput()) || interjections.contains(input)) {
          log.info("send on {}: input repeats the run's input; treated as a retry", sessionId);
        } else {
          interjections.add(input);
        }
      }
      target = activeRun;
    } else {
      for (Message input : inputs) {
        if (!queuedInputs.contains(input)) {
          queuedInputs.add(input);
        }
      }
      target = lastRun + 1;
    }
    Workflow.await(() -> settledRun >= target || pausedAt(target) || continuing);
    if (settledRun < target && !continuing) {
      // The SDK runs update handlers before the signal handlers of the same workflow task: let a
      // cancel or decision that arrived with this update act before the pause is reported.
      letOtherHandlersRun();
      Workflow.await(() -> settledRun >= target || pausedAt(target) || continuing);
    }
    if (settledRun >= target) {
      return results.get(target);
    }
    if (continuing) {
      RunResult progress = currentRun != null ? currentRun.progressResult() : lastResult;
      return progress == null ? null : progress.markContinued();
    }
    return currentRun.pausedResult();
  }

  /** Run {@code target} waits for a decision that has not arrived, and nothing will end the wait. */
  private boolean pausedAt(int target) {
    return activeRun == target
        && pauseSaved
        && pendingDecision == null
        && (currentRun == null || !currentRun.cancelRequested);
  }

  /**
   * Blocks this handler once, so that every other runnable workflow thread (signal handlers
   * included) runs before it goes on. No command is issued: replay is unaffected.
   */
  private static void letOtherHandlersRun() {
    boolean[] yielded = {false};
    Workflow.await(
        () -> {
          boolean again = yielded[0];
          yielded[0] = true;
          return again;
        });
  }

  /** The new messages of a request: a re-sent stored history is recognised and dropped. */
  private List<Message> newInputs(SendRequest request) {
    List<Message> inputs = SendRules.inputsOf(request);
    if (transcript.isPrefixOf(request.messages())) {
      // The request's messages come first: drop the stored conversation they start with.
      return inputs.subList(transcript.size(), inputs.size());
    }
    return inputs;
  }

  // ---- approvals and cancel --------------------------------------------------------------

  @Override
  public void decide(Decision decision) {
    String problem = decision == null ? null : InputChecks.decisionProblem(decision);
    if (problem != null) {
      // A signal cannot be refused: a decision over a limit is dropped, never recorded, so the
      // checkpoint it would land on stays within Temporal's payload limits.
      ignoredDecisions++;
      log.warn(
          "decide on {}: dropped the decision for approval {}: {}",
          sessionId, InputChecks.shown(decision.approvalId()), problem);
      return;
    }
    if (decision == null || !isPending(decision.approvalId()) || pendingDecision != null) {
      // Unknown, late, or a second decision for the pending approval: the first one stands.
      ignoredDecisions++;
      log.warn(
          "decide on {}: ignored decision for approval {} ({})",
          sessionId,
          decision == null ? null : decision.approvalId(),
          decision != null && closedApprovals.contains(decision.approvalId())
              ? "already decided or expired"
              : "unknown approval id");
      return;
    }
    pendingDecision = decision;
  }

  @Override
  public void validateApprove(Decision decision) {
    if (decision == null || decision.approvalId() == null) {
      throw Rejection.failure(SessionErrors.UNKNOWN_APPROVAL, "A decision needs an approvalId.");
    }
    String problem = InputChecks.decisionProblem(decision);
    if (problem != null) {
      throw Rejection.failure(SessionErrors.INVALID_DECISION, problem, sessionId);
    }
    if (closedApprovals.contains(decision.approvalId())
        || (isPending(decision.approvalId()) && pendingDecision != null)) {
      throw Rejection.failure(
          SessionErrors.APPROVAL_ALREADY_DECIDED,
          "Approval " + decision.approvalId() + " of session '" + sessionId + "' is already decided.",
          sessionId,
          decision.approvalId());
    }
    if (!isPending(decision.approvalId())) {
      throw Rejection.failure(
          SessionErrors.UNKNOWN_APPROVAL,
          "Session '" + sessionId + "' has no pending approval " + decision.approvalId() + ".",
          sessionId,
          decision.approvalId());
    }
  }

  @Override
  public DecisionOutcome approve(Decision decision) {
    updatesThisRun++;
    Approval approval = pendingApproval;
    pendingDecision = decision;
    return new DecisionOutcome(
        approval.approvalId(),
        approval.toolCallId(),
        approval.toolName(),
        decision.approved() ? DecisionOutcome.APPROVED : DecisionOutcome.REJECTED);
  }

  private boolean isPending(String approvalId) {
    return pendingApproval != null && pendingApproval.approvalId().equals(approvalId);
  }

  @Override
  public void cancel(String reason) {
    if (currentRun == null) {
      log.info("cancel on {}: no run in progress; ignored", sessionId);
      return;
    }
    // The reason only reaches logs and the run's cancellation scope: shown, never kept whole.
    currentRun.cancel(InputChecks.shown(reason));
  }

  @Override
  public SessionStatus status() {
    return new SessionStatus(
        sessionId,
        spec == null ? agentName : spec.name(),
        status,
        lastRun,
        step,
        transcript.size(),
        totalUsage,
        lastResult,
        pendingApproval,
        businessState);
  }

  // ---- bookkeeping -----------------------------------------------------------------------

  private void settle(RunResult result) {
    results.put(result.run(), result);
    while (results.size() > KEPT_RESULTS) {
      results.remove(results.keySet().iterator().next());
    }
    lastResult = result;
    status = result.status();
    settledRun = result.run();
    activeRun = 0;
    showStatus();
  }

  /** Shows where the session is in Temporal's tools (see {@link SessionVisibility}). */
  private void showStatus() {
    // A run carried over continue-as-new while it waits for a decision is still waiting.
    visibility.show(lastRun, pendingApproval != null ? RunStatus.AWAITING_APPROVAL : status, pendingApproval);
  }

  /**
   * Saves a checkpoint entry with the messages added since the previous save (after any save that
   * was deferred).
   */
  private void save(int stepIndex, String checkpointStatus, String finishReason, List<ApprovalRecord> approvals) {
    writes.write(() -> checkpoint(stepIndex, checkpointStatus, finishReason, approvals));
    transcript.markSaved();
    step = Math.max(step, stepIndex);
  }

  private void save(int stepIndex, String checkpointStatus, String finishReason) {
    save(stepIndex, checkpointStatus, finishReason, List.of());
  }

  /** Saves a checkpoint entry as part of the next model turn's activity (see {@link CheckpointWrites}). */
  private void saveWithNextTurn(int stepIndex, String checkpointStatus, String finishReason) {
    writes.deferToNextTurn(() -> checkpoint(stepIndex, checkpointStatus, finishReason, List.of()));
    transcript.markSaved();
    step = Math.max(step, stepIndex);
  }

  /** Saves a checkpoint entry by an activity started together with the next call's. */
  private void startSaveAlongside(
      int stepIndex, String checkpointStatus, String finishReason, List<ApprovalRecord> approvals) {
    writes.startAlongside(() -> checkpoint(stepIndex, checkpointStatus, finishReason, approvals));
    transcript.markSaved();
    step = Math.max(step, stepIndex);
  }

  private CheckpointSave checkpoint(
      int stepIndex, String checkpointStatus, String finishReason, List<ApprovalRecord> approvals) {
    return new CheckpointSave(
        sessionId,
        Workflow.getInfo().getFirstExecutionRunId(),
        spec == null ? agentName : spec.name(),
        activeRun,
        stepIndex,
        checkpointStatus,
        finishReason,
        transcript.stored(),
        transcript.unsaved(),
        totalUsage,
        spec == null ? null : spec.fingerprint(),
        Workflow.currentTimeMillis(),
        approvals,
        businessState,
        null);
  }

  private static ApprovalRecord approvalRecord(
      Approval approval, int run, int atStep, String state, Decision decision, long decidedAt) {
    return new ApprovalRecord(
        approval,
        run,
        atStep,
        state,
        decidedAt,
        decision == null ? null : decision.decidedBy(),
        decision == null ? null : decision.note(),
        0);
  }

  // ---- one run ---------------------------------------------------------------------------

  /** One run: the loop of model turns and tool batches that one message triggers. */
  private final class AgentRun {
    private final int run;
    private final List<Message> inputs;
    private final Message startInput;
    private final List<ToolCall> resumeCalls;
    private final List<CallCheck> resumeChecks;
    /** A wait point carried over continue-as-new: its call is the first of {@code resumeCalls}. */
    private Approval resumedApproval;
    private int resumedPausedAt;
    private final List<ToolCallRecord> toolCalls = new ArrayList<>();
    /** Characters of arguments and results in {@code toolCalls}; bounded by the run result's limit. */
    private long toolCallChars;
    /** Set once a call did not fit: it and every later call of the run are listed omitted. */
    private boolean omittingToolCalls;
    private int steps;
    private Usage usage = Usage.ZERO;
    private String lastText;
    private JsonNode output;
    private Duration storeBackoff = Duration.ZERO;
    /** Set when a turn of this run found a worker without the transcript it held saves on. */
    private boolean heldSavesMissed;
    /** The envelope that started this run, if a trigger did: handed to its tools. */
    private TriggerEnvelope trigger;
    private boolean cancelRequested;
    private boolean timedOut;
    private CancellationScope scope;
    private CancellationScope timerScope;
    private ToolBatch batch;

    AgentRun(List<Message> inputs) {
      this(inputs, List.of(), List.of(), 0);
    }

    /**
     * A run that first resolves calls recorded without a result (a fork), then takes its inputs.
     * {@code stepsUsed} model turns of its budget are already spent.
     */
    AgentRun(List<Message> inputs, List<ToolCall> resumeCalls, List<CallCheck> resumeChecks, int stepsUsed) {
      this.run = ++lastRun;
      this.inputs = inputs;
      this.startInput = inputs.isEmpty() ? null : inputs.get(0);
      this.resumeCalls = resumeCalls;
      this.resumeChecks = resumeChecks;
      this.steps = stepsUsed;
    }

    /** The run in progress when the session continued as new, picked up where it stood. */
    AgentRun(SessionSnapshot.RunSnapshot snapshot) {
      this.run = snapshot.run();
      this.inputs = List.of();
      this.startInput = snapshot.startInput();
      this.resumeCalls = snapshot.resumeCalls();
      this.resumeChecks = snapshot.resumeChecks();
      this.resumedApproval = snapshot.approval();
      this.resumedPausedAt = snapshot.pausedAt();
      this.steps = snapshot.steps();
      this.usage = snapshot.usage() == null ? Usage.ZERO : snapshot.usage();
      snapshot.toolCalls().forEach(this::keep);
      this.lastText = snapshot.lastText();
      this.trigger = snapshot.trigger();
    }

    Message startInput() {
      return startInput;
    }

    /**
     * Adds a call to the run's result: whole while the run's calls fit {@link
     * RunResult#MAX_TOOL_CALL_CHARS}, omitted from the first that does not (the transcript has it).
     */
    private void recordCall(ToolCall call, JsonNode result) {
      long chars = MessageSize.chars(call.arguments()) + MessageSize.chars(result);
      if (!omittingToolCalls && toolCallChars + chars <= RunResult.MAX_TOOL_CALL_CHARS) {
        keep(new ToolCallRecord(call.id(), call.name(), call.arguments(), result));
      } else {
        keep(ToolCallRecord.omitted(call.id(), call.name()));
      }
    }

    private void keep(ToolCallRecord record) {
      toolCalls.add(record);
      omittingToolCalls |= record.isOmitted();
      toolCallChars += MessageSize.chars(record.arguments()) + MessageSize.chars(record.result());
    }

    void adoptTrigger(TriggerEnvelope envelope) {
      if (trigger == null) {
        trigger = envelope;
      }
    }

    private SessionSnapshot.RunSnapshot snapshot(
        List<ToolCall> pendingCalls, List<CallCheck> pendingChecks, Approval approval, int pausedAt) {
      return new SessionSnapshot.RunSnapshot(
          run, steps, usage, new ArrayList<>(toolCalls), lastText, startInput,
          new ArrayList<>(interjections), pendingCalls, pendingChecks, approval, pausedAt, trigger);
    }

    void cancel(String reason) {
      log.info("cancel on {} run {}: {}", sessionId, run, reason);
      cancelRequested = true;
      if (scope != null) {
        scope.cancel(reason);
      }
    }

    RunResult execute() {
      activeRun = run;
      preparingFork = false;
      status = RunStatus.IN_PROGRESS;
      showStatus();
      if (resumeCalls.isEmpty()) {
        inputs.forEach(transcript::add);
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
      if (outcome[0] != null) {
        return outcome[0];
      }
      return cancelled();
    }

    private RunResult loop() {
      try {
        spec = stubs.localAgents().resolveAgent(agentName);
      } catch (ActivityFailure failure) {
        unlessCancelled();
        return fail(errorOf(failure, "agent_unavailable"));
      }
      visibility.agentKnown(spec.name(), spec.searchAttributes());
      showStatus();
      int maxSteps =
          start.maxSteps() != null && start.maxSteps() > 0
              ? Math.min(start.maxSteps(), Limits.MAX_STEPS)
              : spec.maxSteps();
      armTimer();
      if (!resumeCalls.isEmpty()) {
        batch = new ToolBatch(resumeCalls, resumeChecks);
        batch.execute();
        batch = null;
        inputs.forEach(transcript::add);
        save(step + 1, RunStatus.IN_PROGRESS, FinishReason.TOOL_CALLS);
      }
      while (true) {
        unlessCancelled();
        if (shouldContinueAsNew()) {
          if (transcript.hasUnsaved()) {
            // The snapshot carries the transcript by reference only: the run's input, not saved
            // yet, is saved first, or the next workflow run would never see it.
            save(step + 1, RunStatus.IN_PROGRESS, null);
          }
          continueAsNew(() -> AgentSessionWorkflowImpl.this.snapshot(snapshot(List.of(), List.of(), null, 0)));
        }
        if (steps >= maxSteps) {
          return finishOnBudget(FinishReason.MAX_STEPS);
        }
        if (spec.maxTokens() > 0 && usage.total() >= spec.maxTokens()) {
          return finishOnBudget(FinishReason.MAX_TOKENS);
        }
        interjections.forEach(transcript::add);
        interjections.clear();
        writes.awaitAlongside(); // the turn writes the deferred entries after it
        int turnStep = step + 1;
        TurnSaves saves = writes.nextTurn(spec, heldSavesMissed);
        ModelTurnResult turn;
        try {
          turn =
              stubs
                  .model(spec, turnStep)
                  .modelTurn(
                      new ModelTurnRequest(
                          sessionId,
                          spec.name(),
                          run,
                          turnStep,
                          step,
                          transcript.stored(),
                          transcript.unsaved(),
                          transcript.chain(),
                          Workflow.getInfo().getFirstExecutionRunId(),
                          spec.fingerprint(),
                          saves));
          writes.turnCompleted(saves);
        } catch (ActivityFailure failure) {
          unlessCancelled();
          ErrorInfo error = errorOf(failure, "model_error");
          if (ModelTurnRequest.HELD_SAVES_UNKNOWN.equals(error.code())) {
            // Another worker, or one that forgot the transcript: the turn writes what is held.
            writes.turnMissedTranscript();
            heldSavesMissed = true;
            continue;
          }
          if (STORE_UNAVAILABLE.equals(error.code())) {
            // The store is down: wait it out like a checkpoint save does, then try the turn again.
            storeBackoff = storeBackoff.isZero() ? Duration.ofSeconds(1) : storeBackoff.multipliedBy(2);
            if (storeBackoff.compareTo(Duration.ofMinutes(1)) > 0) {
              storeBackoff = Duration.ofMinutes(1);
            }
            log.warn("{}: store unavailable for the model turn; retrying in {}", sessionId, storeBackoff);
            Workflow.sleep(storeBackoff);
            continue;
          }
          save(turnStep, RunStatus.FAILED, FinishReason.ERROR);
          return fail(error);
        }
        storeBackoff = Duration.ZERO;
        steps++;
        usage = usage.plus(turn.usage());
        totalUsage = totalUsage.plus(turn.usage());
        lastText = turn.text();
        List<ToolCall> calls = withIds(turn.toolCalls(), turnStep);
        transcript.add(Message.assistant(turn.text(), calls));
        boolean answered = calls.isEmpty() && interjections.isEmpty();
        String turnReason =
            turn.finishReason() != null
                ? turn.finishReason()
                : calls.isEmpty() ? FinishReason.STOP : FinishReason.TOOL_CALLS;
        if (!calls.isEmpty()) {
          // The batch's tools do not read the transcript: the entry can wait for the next turn.
          saveWithNextTurn(turnStep, RunStatus.IN_PROGRESS, turnReason);
        } else {
          save(
              turnStep,
              !answered
                  ? RunStatus.IN_PROGRESS
                  : turn.outputError() != null ? RunStatus.FAILED : RunStatus.FINISHED,
              turnReason);
        }
        if (calls.isEmpty()) {
          if (interjections.isEmpty()) {
            disarmTimer();
            if (turn.outputError() != null) {
              return result(
                  RunStatus.FAILED, FinishReason.ERROR, new ErrorInfo("invalid_output", turn.outputError()));
            }
            output = turn.output();
            return result(RunStatus.FINISHED, FinishReason.STOP, null);
          }
          continue;
        }
        batch = new ToolBatch(calls, turn.checks());
        batch.execute();
        batch = null;
        saveWithNextTurn(step + 1, RunStatus.IN_PROGRESS, FinishReason.TOOL_CALLS);
      }
    }

    private void unlessCancelled() {
      if (cancelRequested) {
        throw new CanceledFailure("run " + run + " of " + sessionId + " was cancelled");
      }
    }

    /** A budget is used up: the last entry is saved again, now settled. */
    private RunResult finishOnBudget(String reason) {
      disarmTimer();
      interjections.forEach(transcript::add);
      interjections.clear();
      save(Math.max(step, 1), RunStatus.FINISHED, reason);
      return result(RunStatus.FINISHED, reason, null);
    }

    /**
     * Starts the run's wall-clock budget (a durable timer). Each execution gets the full
     * timeout: the timer is disarmed while the run waits for a decision and armed again after.
     */
    private void armTimer() {
      if (spec == null || spec.runTimeoutMs() <= 0 || timerScope != null) {
        return;
      }
      timerScope =
          Workflow.newCancellationScope(
              () ->
                  Workflow.newTimer(Duration.ofMillis(spec.runTimeoutMs()))
                      .thenApply(
                          fired -> {
                            timedOut = true;
                            cancel("run timeout of " + spec.runTimeoutMs() + " ms");
                            return fired;
                          }));
      timerScope.run();
    }

    private void disarmTimer() {
      if (timerScope != null) {
        timerScope.cancel();
        timerScope = null;
      }
    }

    private RunResult fail(ErrorInfo error) {
      disarmTimer();
      if (transcript.hasUnsaved() || step == 0) {
        save(step + 1, RunStatus.FAILED, FinishReason.ERROR);
      }
      return result(RunStatus.FAILED, FinishReason.ERROR, error);
    }

    /**
     * Settles a cancelled run: calls of the turn without a result get {@code cancelled}, a
     * pending approval is closed, and one entry records the state.
     */
    private RunResult cancelled() {
      timerScope = null;
      List<ApprovalRecord> approvals = new ArrayList<>();
      if (pendingApproval != null) {
        approvals.add(
            approvalRecord(pendingApproval, run, step, ApprovalRecord.CANCELLED, null,
                Workflow.currentTimeMillis()));
        closedApprovals.add(pendingApproval.approvalId());
        pauseSaved = false;
        pendingApproval = null;
        pendingDecision = null;
      }
      if (batch != null) {
        batch.fillCancelled();
        batch = null;
      }
      interjections.forEach(transcript::add);
      interjections.clear();
      if (timedOut) {
        save(step + 1, RunStatus.FAILED, FinishReason.TIMEOUT, approvals);
        return result(
            RunStatus.FAILED,
            FinishReason.TIMEOUT,
            new ErrorInfo("run_timeout", "The run exceeded its timeout of " + spec.runTimeoutMs() + " ms."));
      }
      save(step + 1, RunStatus.CANCELLED, FinishReason.CANCELLED, approvals);
      return result(RunStatus.CANCELLED, FinishReason.CANCELLED, null);
    }

    /** Where the run stands, for a sender answered at a continue-as-new boundary. */
    RunResult progressResult() {
      return result(RunStatus.IN_PROGRESS, null, null);
    }

    RunResult pausedResult() {
      RunResult paused = result(RunStatus.AWAITING_APPROVAL, FinishReason.AWAITING_APPROVAL, null);
      return new RunResult(
          paused.sessionId(), paused.run(), paused.status(), paused.finishReason(), paused.text(),
          null, paused.steps(), paused.usage(), paused.toolCalls(), pendingApproval, null,
          paused.checkpointStep(), paused.messageCount(), null);
    }

    private RunResult result(String runStatus, String finishReason, ErrorInfo error) {
      return new RunResult(
          sessionId,
          run,
          runStatus,
          finishReason,
          lastText,
          output,
          steps,
          usage,
          toolCalls,
          null,
          error,
          step,
          transcript.size(),
          null);
    }

    /**
     * The tool calls of one assistant turn. Every call gets exactly one result, recorded in call
     * order. Runnable calls run as activities, up to {@code toolConcurrency} at a time; a gated
     * call is a barrier: the calls before it finish, the run pauses for the decision, and the calls
     * after it start only once it has its result.
     */
    private final class ToolBatch {
      private final List<ToolCall> calls;
      private final List<CallCheck> checks;
      private final ToolRunner runner;
      private final Promise<?>[] running;
      private final JsonNode[] outcomes;
      /** Each call's business-state updates, applied in call order once the calls before have results. */
      private final List<List<JsonNode>> stateUpdates;
      private int recorded;
      private int stateApplied;

      ToolBatch(List<ToolCall> calls, List<CallCheck> checks) {
        this.calls = calls;
        this.checks = checks == null ? List.of() : checks;
        // A batch carried over continue-as-new finds the calls before it recorded: the same
        // position, so the same idempotency key, as before the hand-over.
        this.runner = new ToolRunner(stubs, spec, sessionId, run, trigger, toolCalls.size());
        this.running = new Promise<?>[calls.size()];
        this.outcomes = new JsonNode[calls.size()];
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
          Promise<JsonNode> result =
              runner.run(call, index, businessState).thenApply(outcome -> settleCall(index, outcome));
          running[i] = result;
          inFlight.add(result);
        }
        awaitAll(inFlight);
        recordPrefix(calls.size());
      }

      /** The recorded check of call {@code index}; runnable when none was recorded. */
      private CallCheck check(int index) {
        return index < checks.size() ? checks.get(index) : CallCheck.RUNNABLE;
      }

      private void awaitAll(List<Promise<JsonNode>> inFlight) {
        for (Promise<JsonNode> promise : inFlight) {
          promise.get();
        }
        inFlight.clear();
      }

      private JsonNode settleCall(int index, ToolOutcome outcome) {
        outcomes[index] = outcome.result();
        stateUpdates.set(index, outcome.stateUpdates());
        applyStateUpdates();
        return outcome.result();
      }

      /**
       * Applies the state updates of the calls that have results, in call order, up to the first
       * call still without one: a call sees the updates of every call before it that has finished.
       */
      private void applyStateUpdates() {
        for (; stateApplied < calls.size() && outcomes[stateApplied] != null; stateApplied++) {
          for (JsonNode patch : stateUpdates.get(stateApplied)) {
            businessState = MergePatch.apply(businessState, patch);
          }
        }
      }

      /** Appends the results of calls {@code [recorded, upTo)} to the transcript, in order. */
      private void recordPrefix(int upTo) {
        applyStateUpdates();
        for (; recorded < upTo; recorded++) {
          ToolCall call = calls.get(recorded);
          transcript.add(Message.toolResult(call, outcomes[recorded]));
          recordCall(call, outcomes[recorded]);
        }
      }

      /**
       * Pauses for a decision on call {@code index}, then runs it or records why it did not run.
       * A wait carried over continue-as-new keeps its approval id and expiry.
       */
      private JsonNode decideAndRun(int index) {
        ToolCall call = calls.get(index);
        long now = Workflow.currentTimeMillis();
        Approval approval;
        int pausedAt;
        if (resumedApproval != null && resumedApproval.toolCallId().equals(call.id())) {
          approval = resumedApproval;
          pausedAt = resumedPausedAt;
          resumedApproval = null;
        } else {
          approval =
              new Approval(
                  Workflow.randomUUID().toString(),
                  call.id(),
                  call.name(),
                  call.arguments(),
                  now,
                  now + spec.approvalTimeoutMs());
          pendingApproval = approval;
          pendingDecision = null;
          pausedAt = step + 1;
          save(pausedAt, RunStatus.AWAITING_APPROVAL, FinishReason.AWAITING_APPROVAL,
              List.of(approvalRecord(approval, run, pausedAt, ApprovalRecord.PENDING, null, 0)));
          if (spec.notifier()) {
            stubs.notifyLater(sessionId, spec.name(), approval);
          }
        }
        pendingApproval = approval;
        pauseSaved = true;
        status = RunStatus.AWAITING_APPROVAL;
        showStatus();
        disarmTimer();
        boolean decided =
            Workflow.await(
                Duration.ofMillis(Math.max(0, approval.expiresAt() - now)),
                () -> pendingDecision != null || shouldContinueAsNew());
        if (pendingDecision == null && decided) {
          // Still waiting, but this workflow run is long: hand the wait over as it stands.
          int from = index;
          continueAsNew(
              () ->
                  AgentSessionWorkflowImpl.this.snapshot(
                      snapshot(
                          calls.subList(from, calls.size()),
                          checks.subList(Math.min(from, checks.size()), checks.size()),
                          approval,
                          pausedAt)));
        }
        decided = pendingDecision != null;
        Decision decision = decided ? pendingDecision : null;
        pauseSaved = false;
        pendingApproval = null;
        pendingDecision = null;
        closedApprovals.add(approval.approvalId());
        while (closedApprovals.size() > KEPT_DECIDED_IDS) {
          closedApprovals.remove(closedApprovals.iterator().next());
        }
        status = RunStatus.IN_PROGRESS;
        showStatus();
        armTimer();
        long decidedAt = Workflow.currentTimeMillis();
        String state =
            decision == null
                ? ApprovalRecord.EXPIRED
                : decision.approved() ? ApprovalRecord.APPROVED : ApprovalRecord.REJECTED;
        JsonNode result = null;
        if (decision == null) {
          result = ErrorResults.of(ErrorResults.APPROVAL_EXPIRED, null);
        } else if (!decision.approved()) {
          result = ErrorResults.rejected(decision.note());
        }
        if (result != null) {
          outcomes[index] = result;
          recordPrefix(index + 1);
        }
        // The decision lands on the entry that asked for it. An approved call that runs as an
        // activity starts together with that save instead of after it: nothing it does reads it.
        List<ApprovalRecord> decisionRecord =
            List.of(approvalRecord(approval, run, pausedAt, state, decision, decidedAt));
        if (result == null && !spec.tool(call.name()).local()) {
          startSaveAlongside(pausedAt, RunStatus.IN_PROGRESS, FinishReason.AWAITING_APPROVAL, decisionRecord);
        } else {
          save(pausedAt, RunStatus.IN_PROGRESS, FinishReason.AWAITING_APPROVAL, decisionRecord);
        }
        if (result != null) {
          return result;
        }
        applyStateUpdates();
        ToolOutcome outcome = runner.run(call, index, businessState).get();
        stateUpdates.set(index, outcome.stateUpdates());
        return outcome.result();
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
    }
  }

  /** Gives every call an id: the provider's, or one derived from the step and position. */
  private static List<ToolCall> withIds(List<ToolCall> calls, int turnStep) {
    List<ToolCall> named = new ArrayList<>(calls.size());
    for (int i = 0; i < calls.size(); i++) {
      ToolCall call = calls.get(i);
      String id = call.id() != null && !call.id().isBlank() ? call.id() : "call_" + turnStep + "_" + i;
      named.add(new ToolCall(id, call.name(), call.arguments()));
    }
    return named;
  }

  static ErrorInfo errorOf(ActivityFailure failure, String fallbackCode) {
    Throwable cause = failure.getCause();
    if (cause instanceof ApplicationFailure application) {
      String type = application.getType();
      String code = type == null || type.isBlank() ? fallbackCode : type;
      return new ErrorInfo(code, application.getOriginalMessage());
    }
    if (cause instanceof TimeoutFailure timeout) {
      return new ErrorInfo(fallbackCode, "timed out: " + timeout.getTimeoutType());
    }
    if (cause instanceof TemporalFailure temporal) {
      return new ErrorInfo(fallbackCode, temporal.getOriginalMessage());
    }
    return new ErrorInfo(fallbackCode, String.valueOf(failure.getMessage()));
  }
}
