package io.durableagents.store;

import io.durableagents.workflow.Message;
import io.durableagents.workflow.activity.ApprovalRecord;
import io.durableagents.workflow.activity.CheckpointSave;
import java.util.List;
import java.util.Optional;

/**
 * Where sessions are kept outside the workflow: the transcript, the checkpoint history and the
 * session row. Every method is safe to call from several threads. Failures of the database are
 * reported as {@link StoreException}.
 */
public interface AgentStore extends AutoCloseable {

  /**
   * Applies one checkpoint save in a single transaction. Idempotent (a retried save changes
   * nothing) and monotonic (a late save of an older step never moves the session row backwards).
   * Saving a step again replaces its history entry. A save from a different execution id than the
   * stored one replaces every row of the session: the session id was reused by a new workflow.
   */
  void saveCheckpoint(CheckpointSave save);

  /**
   * The first {@code count} messages of the transcript, in order.
   *
   * @throws StoreException if the store holds fewer than {@code count} messages of the session
   * @throws IllegalArgumentException if {@code count} is negative
   */
  List<Message> readMessages(String sessionId, int count);

  /** The stored row of a session, if any save reached the store. */
  Optional<SessionRecord> session(String sessionId);

  /**
   * The checkpoint history of a session, newest step first.
   *
   * @param limit at most this many entries; zero or less means all of them
   */
  List<CheckpointEntry> history(String sessionId, int limit);

  /** Records when the notifier accepted an approval (the first time only). */
  void markApprovalNotified(String sessionId, String approvalId, long notifiedAt);

  /**
   * Approvals, oldest request first: of one session (null: of every session), optionally only
   * the pending ones. {@code notifiedAt} is filled in from the notifier's record.
   */
  List<ApprovalRecord> approvals(String sessionId, boolean pendingOnly);

  /** Releases the store's connections (and its pool, if the store owns it). */
  @Override
  void close();
}
