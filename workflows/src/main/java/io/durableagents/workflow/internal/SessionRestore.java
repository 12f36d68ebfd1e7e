package io.durableagents.workflow.internal;

import io.durableagents.conversation.Usage;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.activity.ForkState;
import io.durableagents.workflow.internal.activity.LifecycleActivities;
import io.durableagents.workflow.internal.activity.SessionRef;
import io.durableagents.workflow.internal.activity.SessionReset;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;

/**
 * The start of a new workflow under a session id: the worker looks the id up in its store (an
 * activity recorded before anything is written under the new execution). A session closed before
 * (by a client or its idle timeout) goes on from its newest entry, with its transcript, business
 * state, usage and run numbering; the new workflow execution takes the session's store rows over,
 * and its tool calls get new idempotency keys (they include the first run id of this execution). An
 * id the store does not know is a new session. A workflow started by a reset moves the session back
 * to the entry it names instead of its newest one.
 */
final class SessionRestore {
  private static final Logger log = Workflow.getLogger(SessionRestore.class);

  private final Session session;

  SessionRestore(Session session) {
    this.session = session;
  }

  /**
   * Restores the session if the store has it; false when the workflow should complete at once (it
   * was started only to close a session that does not exist).
   */
  boolean restore() {
    LifecycleActivities lookups = lookups();
    ForkState past =
        session.start.resetTo() != null ? reset(lookups, session.start.resetTo()) : null;
    if (past == null) {
      past =
          lookups.restoreSession(
              new SessionRef(session.id(), Workflow.getInfo().getFirstExecutionRunId()));
    }
    if (past != null && past.newLife()) {
      if (!session.lifecycle.closing()) {
        log.info(
            "{} starts afresh after the kept history of its deleted session (run {}, step {})",
            session.id(),
            past.run(),
            past.step());
        session.state.numberAfter(past.run(), past.step());
        return true;
      }
      // A close or delete of a deleted session: as for an id the store does not know.
      past = null;
    }
    if (past != null) {
      log.info("{} starts again from its entry at step {}", session.id(), past.step());
      SessionState state = session.state;
      state.transcript().restore(past.messageCount(), past.transcriptHash());
      state.restoredFromStore(past);
      session.results.restore(lastResult(past));
      return true;
    }
    if (session.start.resetTo() != null) {
      // A reset of a session the store does not know: nothing to go on from, unless a send came.
      session.lifecycle.restored();
      AgentSessionWorkflowImpl.letOtherHandlersRun();
      if (session.inbox.hasQueued()) {
        return true;
      }
      Workflow.await(Workflow::isEveryHandlerFinished);
      return false;
    }
    if (!session.lifecycle.closing()) {
      return true;
    }
    // Started by a close of a session id that neither Temporal nor the store knows: a send that
    // came with it starts a new session; otherwise the workflow completes, leaving nothing.
    session.lifecycle.restored();
    AgentSessionWorkflowImpl.letOtherHandlersRun();
    session.lifecycle.refuse("Session '" + session.id() + "' not found.");
    if (session.inbox.hasQueued()) {
      return true;
    }
    Workflow.await(Workflow::isEveryHandlerFinished);
    return false;
  }

  /**
   * Moves the session back to its entry {@code step}; null, with the reset refused, when the store
   * does not keep that entry (the session then goes on from its newest one, as after a close).
   */
  private ForkState reset(LifecycleActivities lookups, int step) {
    String resetId =
        "reset to step " + step + " at " + Instant.ofEpochMilli(Workflow.currentTimeMillis());
    ForkState past =
        lookups.resetSession(
            new SessionReset(
                session.id(), Workflow.getInfo().getFirstExecutionRunId(), step, resetId));
    if (past == null) {
      log.info("{} has no entry at step {} in the store: not reset", session.id(), step);
      session.refuseFork(
          "Session '"
              + session.id()
              + "' has no history entry at step "
              + step
              + " on its current line.");
      return null;
    }
    log.info("{} is reset to its entry at step {}", session.id(), step);
    session.state.resetTo(step);
    return past;
  }

  /**
   * The activities of the store lookup: regular ones from {@link ChangeIds#RECORDED_RESTORE} on,
   * whose answer no lost workflow task can change; local ones in histories from before.
   */
  private LifecycleActivities lookups() {
    return Workflow.getVersion(ChangeIds.RECORDED_RESTORE, Workflow.DEFAULT_VERSION, 1)
            == Workflow.DEFAULT_VERSION
        ? session.stubs.lifecycle()
        : session.stubs.recordedLifecycle();
  }

  /** The newest entry as the result of its run (no steps of this execution). */
  private RunResult lastResult(ForkState past) {
    return RunResult.newBuilder()
        .setSessionId(session.id())
        .setRun(past.run())
        .setStatus(RunStatus.settled(past.status()) ? past.status() : RunStatus.FINISHED)
        .setFinishReason(past.finishReason())
        .setText(past.lastText())
        .setSteps(0)
        .setUsage(Usage.ZERO)
        .setToolCalls(List.of())
        .setCheckpointStep(past.step())
        .setMessageCount(past.messageCount())
        .build();
  }
}
