package io.durableagents.store.internal;

import static io.durableagents.store.internal.JdbcStatements.count;
import static io.durableagents.store.internal.JdbcStatements.executeUpdate;

import io.durableagents.store.PruneResult;
import io.durableagents.store.StoreException;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The deletes across {@code agent_messages}, {@code agent_checkpoints}, {@code agent_steps}, {@code
 * agent_runs}, {@code agent_approvals} and {@code agent_sessions}: deleting a session, pruning old
 * ones, clearing one for a rebuild or for a new workflow that reuses its id. The caller holds the
 * transaction (and the session's lock).
 */
final class SessionRemoval {
  private SessionRemoval() {}

  /**
   * Deletes the session's rows; whether any were. With {@code keepHistory}, its history entries
   * stay, retired as {@code retiredBy} names (see {@link #retire}).
   */
  static boolean delete(
      Connection connection, String sessionId, boolean keepHistory, String retiredBy)
      throws SQLException {
    int removed = 0;
    if (keepHistory) {
      removed += retire(connection, sessionId, retiredBy);
    } else {
      removed += executeUpdate(connection, Sql.DELETE_MESSAGES, sessionId);
      removed += executeUpdate(connection, Sql.DELETE_SUPERSEDED_MESSAGES, sessionId);
      removed += executeUpdate(connection, Sql.DELETE_CHECKPOINTS, sessionId);
      executeUpdate(connection, Sql.DELETE_STEPS, sessionId);
      executeUpdate(connection, Sql.DELETE_RUNS, sessionId);
    }
    removed += executeUpdate(connection, Sql.DELETE_APPROVALS, sessionId);
    removed += executeUpdate(connection, Sql.DELETE_SESSION, sessionId);
    return removed > 0;
  }

  /**
   * Retires the history entries of the session's current line, as a reset would supersede them:
   * they stay, marked superseded by {@code retiredBy}, with the messages their transcripts need
   * copied aside, and the session's transcript is emptied. A new session under the id then writes
   * from message 0, and its entries are numbered after the retired ones (it never writes over
   * them). Answers how many rows changed.
   */
  static int retire(Connection connection, String sessionId, String retiredBy) throws SQLException {
    int changed =
        executeUpdate(
            connection, Sql.COPY_SUPERSEDED_MESSAGES, retiredBy, sessionId, sessionId, -1);
    changed += executeUpdate(connection, Sql.SUPERSEDE_ENTRIES, retiredBy, sessionId, -1);
    changed += executeUpdate(connection, Sql.DELETE_MESSAGES, sessionId);
    return changed;
  }

  /** Deletes every row of a session whose id a new workflow reuses. */
  static void deleteForReuse(Connection connection, String sessionId) throws SQLException {
    executeUpdate(connection, Sql.DELETE_MESSAGES, sessionId);
    executeUpdate(connection, Sql.DELETE_SUPERSEDED_MESSAGES, sessionId);
    executeUpdate(connection, Sql.DELETE_CHECKPOINTS, sessionId);
    executeUpdate(connection, Sql.DELETE_STEPS, sessionId);
    executeUpdate(connection, Sql.DELETE_RUNS, sessionId);
    executeUpdate(connection, Sql.DELETE_APPROVALS, sessionId);
    executeUpdate(connection, Sql.DELETE_SESSION, sessionId);
  }

  /** Deletes settled sessions not updated since {@code before}, then older rows of any session. */
  static PruneResult prune(Connection connection, long before) throws SQLException {
    int messages = executeUpdate(connection, Sql.PRUNE_SESSION_MESSAGES, before);
    int entries = executeUpdate(connection, Sql.PRUNE_SESSION_CHECKPOINTS, before);
    int approvals = executeUpdate(connection, Sql.PRUNE_SESSION_APPROVALS, before);
    executeUpdate(connection, Sql.PRUNE_SESSION_RUNS, before);
    int sessions = executeUpdate(connection, Sql.PRUNE_SESSIONS, before);
    entries += executeUpdate(connection, Sql.PRUNE_CHECKPOINTS, before);
    executeUpdate(connection, Sql.PRUNE_ORPHAN_STEPS);
    messages += executeUpdate(connection, Sql.PRUNE_ORPHAN_MESSAGES);
    messages += executeUpdate(connection, Sql.PRUNE_ORPHAN_SUPERSEDED_MESSAGES);
    return new PruneResult(sessions, entries, messages, approvals);
  }

  /**
   * Deletes what a rebuild from the session's workflow history rewrites, starting at {@code first}
   * (null: there is no save); a forked session keeps the messages and entries its fork copied.
   *
   * @throws StoreException if the store lacks messages the fork copied
   */
  static void clearForRebuild(Connection connection, String sessionId, CheckpointSave first)
      throws SQLException {
    executeUpdate(connection, Sql.DELETE_RUNS, sessionId);
    if (first == null || first.firstSeq() == 0) {
      executeUpdate(connection, Sql.DELETE_MESSAGES, sessionId);
      executeUpdate(connection, Sql.DELETE_CHECKPOINTS, sessionId);
      executeUpdate(connection, Sql.DELETE_STEPS, sessionId);
      executeUpdate(connection, Sql.DELETE_SESSION, sessionId);
    } else {
      // A forked session: the fork copied its first messages (and the entry it forked from)
      // into the store; the workflow history starts after them.
      int held = count(connection, Sql.COUNT_MESSAGES_BELOW, sessionId, first.firstSeq());
      if (held != first.firstSeq()) {
        throw new StoreException(
            "cannot rebuild session "
                + sessionId
                + ": its first save starts at message "
                + first.firstSeq()
                + ", and the store holds only "
                + held
                + " of the messages before it (copied by a fork, not in the workflow history)");
      }
      executeUpdate(connection, Sql.DELETE_MESSAGES_FROM, sessionId, first.firstSeq());
      executeUpdate(connection, Sql.DELETE_CHECKPOINTS_FROM, sessionId, first.step());
      executeUpdate(connection, Sql.DELETE_STEPS_FROM, sessionId, first.step());
    }
    executeUpdate(connection, Sql.DELETE_APPROVALS, sessionId);
  }
}
