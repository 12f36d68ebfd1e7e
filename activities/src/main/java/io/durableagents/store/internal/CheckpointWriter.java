package io.durableagents.store.internal;

import io.durableagents.session.internal.ApprovalRecord;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * Applies checkpoint saves inside a transaction the caller holds, with the session's lock taken:
 * each save writes {@code agent_approvals}, {@code agent_messages}, {@code agent_checkpoints}, its
 * step records ({@code agent_steps}, {@code agent_runs}) and {@code agent_sessions} through their
 * classes, in that order, and trims the history (and its step records) to the limit.
 */
final class CheckpointWriter {
  private final int historyLimit;

  CheckpointWriter(int historyLimit) {
    this.historyLimit = historyLimit;
  }

  /** Applies one save. */
  void write(Connection connection, EncodedSave encoded) throws SQLException {
    SessionRows.Claim claim = SessionRows.claim(connection, encoded);
    if (claim != null) {
      String chain = claim.chain().extend(connection, encoded);
      writeEntry(connection, encoded, chain);
      writeSessionRow(connection, encoded, encoded.stamp(), claim.lastStep(), chain);
    }
  }

  /**
   * Applies consecutive saves of one execution of one session: one ownership check and one session
   * row (the last save's, the newest) instead of one per save.
   */
  void writeConsecutive(Connection connection, List<EncodedSave> saves) throws SQLException {
    SessionRows.Claim claim = SessionRows.claim(connection, saves.get(0));
    if (claim == null) {
      return;
    }
    String chain = null;
    for (EncodedSave save : saves) {
      chain = claim.chain().extend(connection, save);
      writeEntry(connection, save, chain);
    }
    writeSessionRow(
        connection, saves.get(saves.size() - 1), saves.get(0).stamp(), claim.lastStep(), chain);
  }

  /**
   * Applies a fork's first save after copying its first {@code copied} messages from the source.
   */
  void writeFork(Connection connection, String sourceSessionId, int copied, EncodedSave encoded)
      throws SQLException {
    SessionRows.Claim claim = SessionRows.claim(connection, encoded);
    if (claim == null) {
      return;
    }
    if (copied > 0) {
      TranscriptMessages.copyForFork(connection, sourceSessionId, copied, encoded.save());
    }
    // The fork's save names its transcript's hash chain: the copied prefix is never hashed here.
    String chain = new TranscriptChain(null, 0).extend(connection, encoded);
    writeEntry(connection, encoded, chain);
    writeSessionRow(connection, encoded, encoded.stamp(), claim.lastStep(), chain);
  }

  /** The save's approvals, messages and history entry, whose transcript has chain {@code chain}. */
  private static void writeEntry(Connection connection, EncodedSave encoded, String chain)
      throws SQLException {
    CheckpointSave save = encoded.save();
    for (ApprovalRecord approval : save.approvals()) {
      ApprovalRows.upsert(connection, save.sessionId(), approval);
    }
    TranscriptMessages.upsert(connection, encoded);
    HistoryEntries.upsert(connection, encoded, chain);
    StepRows.upsert(connection, encoded);
  }

  /**
   * The session row as of the save (created at {@code createdAt} if it is new), and the history
   * trimmed to the limit. Steps are distinct non-negative numbers, so a session whose highest step
   * is below the limit cannot hold too many entries: the trim is skipped.
   */
  private void writeSessionRow(
      Connection connection, EncodedSave encoded, long createdAt, int storedLastStep, String chain)
      throws SQLException {
    SessionRows.upsert(connection, encoded, createdAt, chain);
    CheckpointSave save = encoded.save();
    if (Math.max(storedLastStep, save.step()) < historyLimit) {
      return;
    }
    HistoryEntries.trim(connection, save.sessionId(), historyLimit);
    JdbcStatements.executeUpdate(connection, Sql.DELETE_STEPS_PAST_HISTORY, save.sessionId());
  }
}
