package io.durableagents.store.internal;

import io.durableagents.conversation.Message;
import io.durableagents.projection.internal.ProjectionQueries;
import io.durableagents.projection.internal.StoredEntry;
import io.durableagents.projection.internal.StoredSession;
import io.durableagents.session.RunRecord;
import io.durableagents.session.StepRecord;
import io.durableagents.session.internal.ApprovalRecord;
import io.durableagents.store.AgentStore;
import io.durableagents.store.StoreException;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The plugin's side of an {@link AgentStore}: the checkpoint saves its activities write, and the
 * reads they need. Its records are the workflow's wire format, so this interface is not user API;
 * {@link #of} finds it in a store that {@link io.durableagents.store.AgentStores} opened. Every
 * method is safe to call from several threads. Failures of the database are reported as {@link
 * io.durableagents.store.StoreUnavailableException} (try again later); data that is not as it
 * should be (missing rows) as any other {@link StoreException}.
 */
public interface CheckpointStore extends AgentStore {

  /**
   * The checkpoint side of {@code store}.
   *
   * @throws IllegalArgumentException if {@code store} was not opened by {@link
   *     io.durableagents.store.AgentStores}
   */
  static CheckpointStore of(AgentStore store) {
    if (store instanceof CheckpointStore checkpoints) {
      return checkpoints;
    }
    throw new IllegalArgumentException(
        "The store must be one that AgentStores.open returned, was "
            + (store == null ? "null" : store.getClass().getName()));
  }

  /**
   * Applies one checkpoint save in a single transaction. Idempotent (a retried save changes
   * nothing) and monotonic (a late save of an older step never moves the session row backwards).
   * Saving a step again replaces its history entry, unless the stored entry was saved later (a late
   * retry of an earlier save never undoes a newer one). A save from a different execution id than
   * the stored one replaces every row of the session (the session id was reused by a new workflow),
   * unless it is older than the stored session's first save (a late save of the workflow that used
   * the id before). After the save, history entries of the session beyond the newest {@link
   * #historyLimit()} steps are deleted; the transcript is kept whole.
   */
  void saveCheckpoint(CheckpointSave save);

  /**
   * Applies several saves of one session in order, each as {@link #saveCheckpoint} would; a store
   * that can applies them in a single transaction. The default saves them one by one.
   */
  default void saveCheckpoints(List<CheckpointSave> saves) {
    for (CheckpointSave save : saves) {
      saveCheckpoint(save);
    }
  }

  /**
   * Writes a fork's first checkpoint in one transaction: the first {@code copied} messages of
   * {@code sourceSessionId}, copied as they are stored, then {@code save}, whose new messages
   * continue them ({@code save.firstSeq() == copied}). The copy never passes through the worker.
   *
   * @throws StoreException if the source holds fewer than {@code copied} messages
   */
  void saveFork(String sourceSessionId, int copied, CheckpointSave save);

  /**
   * The first {@code count} messages of the transcript, in order.
   *
   * @throws StoreException if the store holds fewer than {@code count} messages of the session
   * @throws IllegalArgumentException if {@code count} is negative
   */
  List<Message> readMessages(String sessionId, int count);

  /**
   * Messages {@code from} (inclusive) to {@code to} (exclusive) of the transcript, in order.
   *
   * @throws StoreException if the store does not hold all of them
   * @throws IllegalArgumentException if the range is not one
   */
  List<Message> readMessages(String sessionId, int from, int to);

  /** The stored row of a session, if any save reached the store. */
  Optional<StoredSession> session(String sessionId);

  /**
   * Records that session {@code sessionId} (the execution {@code executionId} of it) is a fork of
   * {@code parentSessionId} at history step {@code parentStep}, patched as {@code patchSummary}
   * says ({@link io.durableagents.workflow.ForkPatch#summary()}). Idempotent; a row of another
   * execution is left alone.
   */
  void recordLineage(
      String sessionId,
      String executionId,
      String parentSessionId,
      int parentStep,
      String patchSummary);

  /**
   * Hands the stored session {@code sessionId} over to the workflow execution {@code executionId}
   * (a new workflow under the id of a closed session), marking it open again: that execution's
   * saves continue the session's rows rather than replacing them. Answers the row as it was; empty
   * (and nothing written) when the store has no such session.
   */
  Optional<StoredSession> adopt(String sessionId, String executionId);

  /**
   * Moves the stored session {@code sessionId} back to its history entry {@code step} for the
   * workflow execution {@code executionId}: the entries after it are marked superseded by {@code
   * resetId}, with a copy of the messages their transcripts need; the messages after the entry's
   * transcript are removed; the session row is taken over, open again, standing at the entry (its
   * newest step kept). Answers the entry and the session row as it was before; empty (and nothing
   * written) when the store keeps no such entry on the session's current line. Idempotent.
   */
  Optional<ResetPoint> reset(String sessionId, String executionId, int step, String resetId);

  /**
   * For a new session under the id {@code sessionId} of a session deleted with its history kept:
   * retires the kept entries of its current line (marked superseded by {@code retiredBy}, their
   * messages copied aside; entries a delete retired already stay as they are) and answers the kept
   * history's newest entry, after whose run and step the new session numbers its own. Empty (and
   * nothing written) when the store has a session row under the id, or no history.
   */
  Optional<StoredEntry> retireKeptHistory(String sessionId, String retiredBy);

  /** The entry a session was reset to, and its session row as it was before the reset. */
  record ResetPoint(StoredEntry entry, StoredSession session) {}

  /**
   * Marks the session closed at {@code closedAt} (epoch milliseconds), if its row belongs to the
   * execution {@code executionId}. Idempotent.
   */
  void markClosed(String sessionId, String executionId, long closedAt);

  /**
   * The checkpoint history of a session, newest step first.
   *
   * @param limit at most this many entries; zero or less means all of them
   */
  List<StoredEntry> history(String sessionId, int limit);

  /** The newest history entry of the session's current line (none a reset superseded). */
  Optional<StoredEntry> newestCurrentEntry(String sessionId);

  /** The step records of a session's entries {@code from .. to} (inclusive), by entry step. */
  Map<Integer, List<StepRecord>> steps(String sessionId, int from, int to);

  /** The runs of a session, first run first. */
  List<RunRecord> runs(String sessionId);

  /**
   * Records the agent definition a run started under, named by its {@code fingerprint} (content
   * addressed: saving a known fingerprint again changes nothing). A store that does not keep
   * definitions (this default) leaves runs without drift checks: they go on with the worker's
   * agent.
   */
  default void saveDefinition(String fingerprint, String agent, String definition) {}

  /** The definition recorded under {@code fingerprint}, as saved; empty when unknown. */
  default Optional<String> definition(String fingerprint) {
    return Optional.empty();
  }

  /** Records when the notifier accepted an approval (the first time only). */
  void markApprovalNotified(String sessionId, String approvalId, long notifiedAt);

  /**
   * Approvals, oldest request first: of one session (null: of every session), optionally only the
   * pending ones. {@code notifiedAt} is filled in from the notifier's record.
   */
  List<ApprovalRecord> approvals(String sessionId, boolean pendingOnly);

  /** How many approvals of every session wait for a decision, and the oldest request. */
  ProjectionQueries.PendingApprovals pendingApprovals();

  /**
   * Replaces the rows of one session with what {@code saves} write when applied in order, in one
   * transaction: readers and concurrent saves see the old rows or the rebuilt ones, never a mix.
   * {@code saves} are the session workflow's checkpoint saves, oldest first (see {@link
   * ProjectionRebuilder}). The history limit applies as it does to live saves.
   *
   * <p>When the first save does not start at message 0 (a forked session, whose first messages were
   * copied into the store by the fork), the messages before it and the history entries before its
   * step are kept: the workflow history cannot re-derive them.
   *
   * @throws StoreException if a save belongs to another session, or the first save starts after
   *     message 0 and the store does not hold the messages before it
   */
  void rebuild(String sessionId, List<CheckpointSave> saves);
}
