package io.durableagents.workflow.internal;

import io.durableagents.conversation.Message;
import io.durableagents.session.Approval;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.internal.activity.AgentSpec;
import io.durableagents.workflow.internal.wire.SessionSnapshot;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.workflow.Workflow;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * The parts of one session workflow, wired once: its state, inbox, approval gate, run results,
 * checkpoints and hand-over. The workflow's handlers and its runs share them through this object;
 * each part keeps its own fields.
 */
final class Session {
  private static final Logger log = Workflow.getLogger(Session.class);

  final SessionStart start;
  final ActivityStubs stubs = new ActivityStubs();
  final SessionState state;
  final Inbox inbox = new Inbox();
  final ApprovalGate approvals;
  final RunResults results = new RunResults();
  final RunResumes resumes = new RunResumes();
  final Checkpoints checkpoints;
  final Handover handover;
  final Lifecycle lifecycle;
  final SubAgents subAgents;

  /** Whether ids are kept stable across paths ({@link ChangeIds#STABLE_IDS}). */
  private boolean stableIds;

  /** The run in progress, if any. */
  private AgentRun currentRun;

  /** Why this fork could not be made, once known: its creator's update answers it. */
  private String forkRefusal;

  Session(SessionStart start) {
    this.start = start;
    String sessionId = Workflow.getInfo().getWorkflowId();
    this.state =
        new SessionState(sessionId, start.agent(), parentSessionId(start), start.fork() != null);
    this.approvals = new ApprovalGate(sessionId);
    this.subAgents = new SubAgents(sessionId, start.subAgentOf());
    this.checkpoints =
        new Checkpoints(
            state, stubs, () -> currentRun == null ? null : currentRun.info(), subAgents.link());
    this.handover = new Handover(start, sessionId);
    this.lifecycle = new Lifecycle(start.fork() == null && start.continued() == null);
  }

  String id() {
    return state.sessionId();
  }

  /** The session a fork was taken from, or a sub-agent session's parent; null for others. */
  private static String parentSessionId(SessionStart start) {
    if (start.fork() != null) {
      return start.fork().parentSessionId();
    }
    return start.subAgentOf() == null ? null : start.subAgentOf().parentSessionId();
  }

  void useStableIds(boolean stable) {
    stableIds = stable;
  }

  boolean stableIds() {
    return stableIds;
  }

  String forkRefusal() {
    return forkRefusal;
  }

  void refuseFork(String reason) {
    forkRefusal = reason;
  }

  AgentRun currentRun() {
    return currentRun;
  }

  /**
   * A cancel for {@code reason}: of the run in progress, or of the run that accepted input waits
   * for (a sub-agent's task, a send taken while the session restores); ignored with neither.
   */
  void cancel(String reason) {
    AgentRun current = currentRun;
    if (current == null && subAgents.isSubAgent() && results.last() == null) {
      // The parent's run was cancelled before this sub-agent's run started: it starts cancelled.
      inbox.cancelBeforeRun(reason);
      return;
    }
    if (current == null
        && (inbox.awaitsRun() || resumes.requested())
        && Workflow.getVersion(ChangeIds.CANCEL_BEFORE_RUN, Workflow.DEFAULT_VERSION, 1)
            != Workflow.DEFAULT_VERSION) {
      // A send was accepted and its run has not started (the session restores, or the task that
      // starts the run is being retried): the run starts cancelled.
      inbox.cancelBeforeRun(reason);
      return;
    }
    if (current == null) {
      log.info("cancel on {}: no run in progress; ignored", id());
      return;
    }
    current.cancel(reason);
  }

  /** Runs {@code run} to its end and settles it. */
  void execute(AgentRun run) {
    currentRun = run;
    RunResult result = run.execute();
    currentRun = null;
    resumes.runEnded(run, result, Workflow.currentTimeMillis());
    settle(result);
  }

  /** Records a run's result: the session is idle again, and waiting senders get it. */
  void settle(RunResult result) {
    results.settled(result);
    state.runSettled(result.status());
    show();
  }

  /** Shows where the session is in Temporal's tools. */
  void show() {
    state.show(waitingApproval(), lifecycle.isClosed());
  }

  /**
   * The approval the session waits on: its own, else the first of a sub-agent session below it
   * (named by its {@link Approval#sessionId()}); null when none waits.
   */
  Approval waitingApproval() {
    return approvals.pending() != null ? approvals.pending() : subAgents.waitingApproval();
  }

  /** Whether a waiting sender is answered "awaiting approval": here or in a session below. */
  boolean awaitingDecision() {
    return approvals.awaitingDecision() || subAgents.waitingApproval() != null;
  }

  /**
   * Continues as new with the session's state and that of the run in progress ({@code run} answers
   * null when there is none). Both are taken once every handler has finished, so they hold what the
   * handlers recorded.
   */
  void continueAsNew(Supplier<SessionSnapshot.RunSnapshot> run) {
    handover.continueAsNew(checkpoints, () -> snapshot(run.get()), state.agentName());
  }

  private SessionSnapshot snapshot(SessionSnapshot.RunSnapshot run) {
    return new SessionSnapshot(
        state.status(),
        state.step(),
        state.transcript().stored(),
        state.transcript().chain(),
        state.totalUsage(),
        state.lastRun(),
        results.last(),
        approvals.closedIds(),
        inbox.queuedCopy(),
        run,
        state.businessState(),
        inbox.queuedRunConfig(),
        resumes.unfinished(),
        resumes.requested(),
        inbox.queuedIdempotencyKey(),
        inbox.queuedConcurrencyKey(),
        lifecycle.idleTimeoutMs(state.spec()),
        state.resetTo());
  }

  /** Takes over the state a previous workflow run of the session handed over. */
  void restore(SessionSnapshot snapshot) {
    state.restored(
        snapshot.status(),
        snapshot.step(),
        snapshot.totalUsage(),
        snapshot.lastRun(),
        snapshot.businessState());
    state.transcript().restore(snapshot.storedMessages(), snapshot.transcriptHash());
    results.restore(snapshot.lastResult());
    SessionSnapshot.RunSnapshot run = snapshot.run();
    approvals.restore(snapshot.closedApprovals(), run == null ? null : run.approval());
    inbox.restore(
        snapshot.queuedInputs(),
        snapshot.queuedRunConfig(),
        snapshot.queuedIdempotencyKey(),
        run == null ? List.of() : run.interjections());
    resumes.restore(
        snapshot.unfinishedRun(),
        snapshot.resumeRequested(),
        run == null ? List.of() : runInputs(run),
        run == null ? null : run.idempotencyKey());
    if (resumes.requested()) {
      results.resumed(resumes.requestedRun());
    }
    inbox.queueConcurrencyKey(snapshot.queuedConcurrencyKey());
    if (run != null) {
      state.activeRunRestored(run.run());
    }
    lifecycle.restoreIdleTimeout(snapshot.idleTimeoutMs());
    state.resetTo(snapshot.resetTo());
  }

  /** The inputs a carried-over run started from; older snapshots name only the first. */
  private static List<Message> runInputs(SessionSnapshot.RunSnapshot run) {
    if (!run.inputs().isEmpty() || run.startInput() == null) {
      return run.inputs();
    }
    return List.of(run.startInput());
  }

  SessionStatus status() {
    RunLease lease = currentRun == null ? null : currentRun.lease();
    return SessionStatus.newBuilder()
        .setSessionId(id())
        .setAgent(state.shownAgent())
        .setStatus(
            subAgents.waitingApproval() != null && state.status() == RunStatus.IN_PROGRESS
                ? RunStatus.AWAITING_APPROVAL
                : state.status())
        .setRun(state.lastRun())
        .setCheckpointStep(state.step())
        .setMessageCount(state.transcript().size())
        .setUsage(state.totalUsage())
        .setLastResult(shownLastResult())
        .setApproval(waitingApproval())
        .setBusinessState(state.businessState())
        .setMaxSteps(shownMaxSteps())
        .setLifecycle(lifecycle.state())
        .setResetTo(state.resetTo())
        .setConcurrencyKey(state.concurrencyKey())
        .setQueuePlace(lease == null ? null : lease.waitingPlace())
        .build();
  }

  /**
   * The last run's result as {@code status} shows it: the run that waits for a decision answers
   * with its paused result (awaiting approval), as its sender was answered; else the newest settled
   * run's. Neither carries the transcript.
   */
  private RunResult shownLastResult() {
    AgentRun current = currentRun;
    if (current != null
        && state.activeRun() == current.number()
        && awaitingDecision()
        && !current.cancelRequested()) {
      return current.pausedResult();
    }
    return results.last();
  }

  /**
   * The per-run budget the session's start set, as its runs take it: a sub-agent session's runs
   * take no more than their agent declares ({@link AgentRun}'s budget), so once the agent is known
   * the smaller of the two is shown.
   */
  private Integer shownMaxSteps() {
    Integer override = start.maxSteps();
    AgentSpec spec = state.spec();
    if (override == null || override <= 0 || spec == null || !subAgents.isSubAgent()) {
      return override;
    }
    return AgentRun.maxSteps(override, spec, true);
  }
}
