package io.durableagents.workflow.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Usage;
import io.durableagents.session.Approval;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.internal.activity.AgentSpec;
import io.durableagents.workflow.internal.activity.ForkState;
import io.durableagents.workflow.internal.wire.MergePatch;

/**
 * Where a session stands between and during runs: its agent, status, run and step counters, usage,
 * business state and transcript. Changed only through the transitions below, each named after what
 * happened.
 */
final class SessionState {
  private final String sessionId;
  private final Transcript transcript = new Transcript();
  private final SessionVisibility visibility;

  /** The session's agent: as started, or the source's for a fork (null: the worker's default). */
  private String agentName;

  /** The agent definition of the current or last run, as resolved when it started. */
  private AgentSpec spec;

  private RunStatus status = RunStatus.IDLE;
  private int lastRun;
  private int activeRun;
  private int step;
  private Usage totalUsage = Usage.ZERO;

  /**
   * The JSON the session's tools read and update (null until one does): merge patches from tool
   * results are applied in call order as the results are recorded.
   */
  private JsonNode businessState;

  /** The history entry the session was last reset to, or null when it never was. */
  private Integer resetTo;

  /** The concurrency key of the current or last run (null: none). */
  private String concurrencyKey;

  /** True until a forked session's transcript is prepared: senders wait for it. */
  private boolean preparingFork;

  SessionState(String sessionId, String agentName, String parentSessionId, boolean fork) {
    this.sessionId = sessionId;
    this.agentName = agentName;
    this.preparingFork = fork;
    this.visibility = new SessionVisibility(parentSessionId);
  }

  String sessionId() {
    return sessionId;
  }

  Transcript transcript() {
    return transcript;
  }

  String agentName() {
    return agentName;
  }

  /** The agent's name as the session shows it: the resolved one once a run has resolved it. */
  String shownAgent() {
    return spec == null ? agentName : spec.name();
  }

  AgentSpec spec() {
    return spec;
  }

  RunStatus status() {
    return status;
  }

  int lastRun() {
    return lastRun;
  }

  int activeRun() {
    return activeRun;
  }

  int step() {
    return step;
  }

  Usage totalUsage() {
    return totalUsage;
  }

  JsonNode businessState() {
    return businessState;
  }

  boolean preparingFork() {
    return preparingFork;
  }

  /** Numbers a new run: the one after the last. */
  int nextRun() {
    return ++lastRun;
  }

  /** Run {@code run} starts (or resumes after continue-as-new): the session is in progress. */
  void runStarted(int run) {
    activeRun = run;
    preparingFork = false;
    status = RunStatus.IN_PROGRESS;
  }

  /** The run's agent is resolved; the definition is kept for the rest of the run. */
  void agentResolved(AgentSpec resolved) {
    spec = resolved;
    visibility.agentKnown(resolved.name(), resolved.searchAttributes());
  }

  String concurrencyKey() {
    return concurrencyKey;
  }

  /** The run's concurrency key is known: shown from now on. */
  void concurrencyKeyKnown(String key) {
    concurrencyKey = key;
  }

  void statusChanged(RunStatus newStatus) {
    status = newStatus;
  }

  /** A run settled with {@code runStatus}: no run is active any more. */
  void runSettled(RunStatus runStatus) {
    status = runStatus;
    activeRun = 0;
  }

  /** An entry for {@code entryStep} is saved: the session's step is at least that. */
  void stepSaved(int entryStep) {
    step = Math.max(step, entryStep);
  }

  void usageAdded(Usage usage) {
    totalUsage = totalUsage.plus(usage);
  }

  void businessStatePatched(JsonNode patch) {
    businessState = MergePatch.apply(businessState, patch);
  }

  /** A fork's preparation copied its source's entry: the session continues from there. */
  void forkPrepared(String agent, int forkStep, Usage usage, JsonNode state, int runsBefore) {
    agentName = agent;
    step = forkStep;
    totalUsage = usage;
    businessState = state;
    lastRun = runsBefore;
  }

  /** A fork that asked for nothing new: its run is the source's, settled as it was. */
  void forkSettledAsSource(int run, String agent, boolean searchAttributes) {
    lastRun = run;
    visibility.agentKnown(agent, searchAttributes);
  }

  /** The fork's transcript is prepared: senders may go on. */
  void forkReady() {
    preparingFork = false;
  }

  /**
   * The session's newest entry in the store, for a new workflow that goes on from it: the runs
   * continue its numbering, and it shows as it stood.
   */
  void restoredFromStore(ForkState past) {
    agentName = past.agent();
    step = past.step();
    totalUsage = past.usage();
    businessState = past.businessState();
    lastRun = past.run();
    status = RunStatus.settled(past.status()) ? past.status() : RunStatus.FINISHED;
    visibility.agentKnown(past.agent(), past.searchAttributes());
  }

  /**
   * A new session under an id whose deleted session's history is kept: its runs and entries go on
   * after {@code run} and {@code lastStep}.
   */
  void numberAfter(int run, int lastStep) {
    lastRun = run;
    step = lastStep;
  }

  /** The session was moved back to its history entry {@code entryStep}. */
  void resetTo(Integer entryStep) {
    resetTo = entryStep;
  }

  Integer resetTo() {
    return resetTo;
  }

  /** The state carried over continue-as-new. */
  void restored(
      RunStatus restoredStatus,
      int restoredStep,
      Usage usage,
      int restoredLastRun,
      JsonNode state) {
    status = restoredStatus;
    step = restoredStep;
    totalUsage = usage == null ? Usage.ZERO : usage;
    lastRun = restoredLastRun;
    businessState = state;
  }

  void activeRunRestored(int run) {
    activeRun = run;
  }

  /**
   * Shows where the session is in Temporal's tools (see {@link SessionVisibility}). A run carried
   * over continue-as-new while it waits for a decision is still waiting.
   */
  void show(Approval pendingApproval, boolean closed) {
    visibility.show(
        lastRun,
        pendingApproval != null ? RunStatus.AWAITING_APPROVAL : status,
        pendingApproval,
        concurrencyKey,
        closed);
  }
}
