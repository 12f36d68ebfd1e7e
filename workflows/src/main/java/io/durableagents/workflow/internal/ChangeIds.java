package io.durableagents.workflow.internal;

/**
 * The {@code Workflow.getVersion} change ids of the session workflow, one per change of its
 * commands since 0.1.0. Histories recorded before a change replay without it (each change's golden
 * histories are listed in {@code workflows/src/test/resources/histories/README.md}).
 */
final class ChangeIds {
  /** From this version on a run resolves its definition with its configuration and records it. */
  static final String RUN_DEFINITION = "run-definition";

  /**
   * The hand-over onto a newer worker deployment version. Only recorded when the server reported
   * one, which no history before it has, so those replay without it.
   */
  static final String UPGRADE_ON_CONTINUE_AS_NEW = "upgrade-on-continue-as-new";

  /**
   * Ids that no path through the workflow moves: approval ids derived from the call's place, and
   * the first-send wait's draw from the run's random sequence made on both of its paths, so that
   * the local activities after it keep their ids when a first send is lost and sent again.
   */
  static final String STABLE_IDS = "stable-ids";

  /**
   * Sessions with an end of life: a new workflow under a known session id first restores the
   * session from the store (local activity {@code RestoreSession}), and an idle session waits for
   * its next send under a durable timer of its agent's idle timeout, then closes itself.
   */
  static final String SESSION_LIFECYCLE = "session-lifecycle";

  /**
   * A run with a concurrency key queues for the key's lease before its first model turn and gives
   * it back when it settles. Only recorded by runs that have a key, which no history before it has.
   */
  static final String CONCURRENCY_KEYS = "concurrency-keys";

  /**
   * A cancelled run waits for its tool activities to report how they ended (stopped: {@code
   * cancelled}; finished anyway: their real result) instead of giving them {@code cancelled} at
   * once.
   */
  static final String TOOL_CANCEL_WAIT = "tool-cancel-wait";

  /**
   * A send that repeats the input of a failed or cancelled run resumes that run (no message is
   * appended; an entry marks where it resumed) instead of starting a new one ({@link RunResumes}).
   * Recorded only when a send would resume a run, so histories without one replay without it.
   */
  static final String RESUME_RUN = "resume-run";

  /**
   * A new workflow's store lookup ({@code RestoreSession}, or {@code ResetSession} for a reset)
   * runs as a regular activity instead of a local one, so its answer is in the history before any
   * entry is written under the new execution. As a local activity it could run again: when the
   * worker of a first workflow task was killed after the task's local activities had written
   * entries, the task ran again, the lookup found those entries and went on from them as from a
   * closed session's.
   */
  static final String RECORDED_RESTORE = "recorded-restore";

  /**
   * An approval wait that is due to continue as new first waits for the result of the approval's
   * notifier, started by the same wait. Before it, a run that continued as new at once abandoned
   * that activity: a notifier not yet started never ran, and the result of one that had run was
   * lost, so the rebuilt projection lacked the approval's notification time. Only recorded by waits
   * that started a notifier.
   */
  static final String NOTIFIED_BEFORE_HANDOVER = "notified-before-handover";

  private ChangeIds() {}

  /**
   * A call of a sub-agent runs as a child session workflow. Only recorded by runs whose agent has
   * sub-agents, which no history before it has.
   */
  static final String SUB_AGENTS = "sub-agents";

  /**
   * A run that calls a sub-agent first writes its entries that wait for a later write (deferred to
   * the next model turn, or held by turns), then starts the child: the parent's rows are in the
   * store while it waits for the child, which may wait days for a decision. Before it, a new parent
   * was "no session" to its history, reset and the console for that long. Only recorded by batches
   * that call a sub-agent.
   */
  static final String SUB_AGENT_WAIT_SAVES = "sub-agent-wait-saves";

  /**
   * A cancel of a run that asks for its concurrency key's lease ends the ask (activity {@code
   * AcquireLease}, retried without a limit) instead of waiting for its end: a lock that cannot
   * answer no longer keeps the run from being cancelled. Only recorded by runs with a key.
   */
  static final String CANCELLABLE_LEASE_WAIT = "cancellable-lease-wait";

  /**
   * A cancel that arrives after a send was accepted but before its run started (while a new
   * workflow restores the session, or when the workflow task that would start the run is retried
   * and the cancel lands in the same task) cancels that run as it starts, instead of being ignored
   * as if no run were in progress. Only recorded by sessions that get such a cancel.
   */
  static final String CANCEL_BEFORE_RUN = "cancel-before-run";
}
