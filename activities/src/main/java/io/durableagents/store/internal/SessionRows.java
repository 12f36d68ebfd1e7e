package io.durableagents.store.internal;

import static io.durableagents.store.internal.JdbcStatements.executeUpdate;
import static io.durableagents.store.internal.JdbcStatements.setNullableString;

import io.durableagents.conversation.Usage;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.durableagents.workflow.internal.wire.TranscriptHash;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Table {@code agent_sessions}: the session's lock, its ownership by one workflow execution, the
 * row a save leaves (moved only forward, by newer step and {@code updated_at}) and a fork's
 * lineage. The reads are the read model's; the deletes {@link SessionRemoval}'s.
 */
final class SessionRows {
  private SessionRows() {}

  /** The stored session a save goes on from: its newest step (-1: none) and transcript chain. */
  record Claim(int lastStep, TranscriptChain chain) {}

  /**
   * The first statement of every writing transaction on a session: takes the write lock (SQLite) or
   * the session's row lock (PostgreSQL) before anything is read.
   */
  static void lock(Connection connection, String sessionId) throws SQLException {
    executeUpdate(connection, Sql.LOCK_SESSION, sessionId);
  }

  /**
   * Checks the stored session's execution id against the save's: null when the save is a late one
   * of an older workflow that used the session id (nothing to write); when the id was reused by a
   * newer workflow, the old rows are deleted first. Otherwise answers where the stored session
   * stands (a new session has step -1 and an empty transcript).
   */
  static Claim claim(Connection connection, EncodedSave encoded) throws SQLException {
    CheckpointSave save = encoded.save();
    String sessionId = save.sessionId();
    long stamp = encoded.stamp();

    String storedExecution = null;
    long storedCreatedAt = 0;
    int storedLastStep = -1;
    TranscriptChain chain = new TranscriptChain(TranscriptHash.EMPTY, 0);
    try (PreparedStatement select = connection.prepareStatement(Sql.SELECT_EXECUTION_ID)) {
      select.setString(1, sessionId);
      try (ResultSet row = select.executeQuery()) {
        if (row.next()) {
          storedExecution = row.getString(1);
          storedCreatedAt = row.getLong(2);
          storedLastStep = row.getInt(3);
          chain = new TranscriptChain(row.getString(5), row.getInt(4));
        }
      }
    }
    if (storedExecution != null && !storedExecution.equals(save.executionId())) {
      if (stamp < storedCreatedAt) {
        // A late save of the workflow that used this session id before the stored one: the
        // stored session is newer, so this save has nothing to add.
        return null;
      }
      // The session id was reused by a new workflow: its rows replace the old ones.
      SessionRemoval.deleteForReuse(connection, sessionId);
      storedLastStep = -1;
      chain = new TranscriptChain(TranscriptHash.EMPTY, 0);
    }
    return new Claim(storedLastStep, chain);
  }

  /** The session row as of the save, created at {@code createdAt} if it is new. */
  static void upsert(Connection connection, EncodedSave encoded, long createdAt, String chain)
      throws SQLException {
    CheckpointSave save = encoded.save();
    Usage usage = encoded.usage();
    try (PreparedStatement upsert = connection.prepareStatement(Sql.UPSERT_SESSION)) {
      upsert.setString(1, save.sessionId());
      upsert.setString(2, save.executionId());
      upsert.setString(3, save.agent());
      upsert.setString(4, save.status().value());
      upsert.setInt(5, save.run());
      upsert.setInt(6, save.step());
      upsert.setInt(7, save.messageCount());
      upsert.setLong(8, usage.inputTokens());
      upsert.setLong(9, usage.outputTokens());
      setNullableString(upsert, 10, save.fingerprint());
      upsert.setLong(11, createdAt);
      upsert.setLong(12, encoded.stamp());
      setNullableString(upsert, 13, chain);
      setNullableString(upsert, 14, encoded.runConfig());
      setNullableString(upsert, 15, encoded.drift());
      upsert.executeUpdate();
    }
    CheckpointSave.SubAgentLink link = save.subAgentOf();
    if (link != null) {
      executeUpdate(
          connection,
          Sql.SET_SUB_AGENT_LINK,
          link.parentSessionId(),
          link.toolCallId(),
          save.sessionId());
    }
  }

  /** Records a fork's parent on the row of the fork's own execution only. */
  static void setLineage(
      Connection connection,
      String sessionId,
      String executionId,
      String parentSessionId,
      int parentStep,
      String patchSummary)
      throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(Sql.SET_LINEAGE)) {
      update.setString(1, parentSessionId);
      update.setInt(2, parentStep);
      setNullableString(update, 3, patchSummary);
      update.setString(4, sessionId);
      update.setString(5, executionId);
      update.executeUpdate();
    }
  }
}
