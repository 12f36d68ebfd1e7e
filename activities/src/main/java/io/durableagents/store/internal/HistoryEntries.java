package io.durableagents.store.internal;

import static io.durableagents.store.internal.JdbcStatements.setNullableString;

import io.durableagents.conversation.Usage;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;

/**
 * Writes table {@code agent_checkpoints}, the history entries: one per (session, step), replaced
 * only by a save of that step that is not older, and trimmed to the history limit.
 */
final class HistoryEntries {
  private HistoryEntries() {}

  /** The save's history entry, whose transcript has hash chain {@code chain}. */
  static void upsert(Connection connection, EncodedSave encoded, String chain) throws SQLException {
    CheckpointSave save = encoded.save();
    Usage usage = encoded.usage();
    try (PreparedStatement upsert = connection.prepareStatement(Sql.UPSERT_CHECKPOINT)) {
      upsert.setString(1, save.sessionId());
      upsert.setInt(2, save.step());
      upsert.setInt(3, save.run());
      upsert.setString(4, save.status().value());
      setNullableString(upsert, 5, save.finishReason());
      upsert.setInt(6, save.messageCount());
      upsert.setLong(7, usage.inputTokens());
      upsert.setLong(8, usage.outputTokens());
      setNullableString(upsert, 9, save.fingerprint());
      upsert.setLong(10, encoded.stamp());
      setNullableString(
          upsert, 11, save.businessState() == null ? null : save.businessState().toString());
      setNullableString(upsert, 12, chain);
      CheckpointSave.RunInfo run = save.runInfo();
      if (run == null) {
        upsert.setNull(13, Types.INTEGER);
        upsert.setNull(14, Types.BIGINT);
        upsert.setNull(15, Types.BIGINT);
      } else {
        upsert.setInt(13, run.steps());
        upsert.setLong(14, run.usage().inputTokens());
        upsert.setLong(15, run.usage().outputTokens());
      }
      setNullableString(upsert, 16, encoded.runConfig());
      setNullableString(upsert, 17, encoded.drift());
      upsert.executeUpdate();
    }
  }

  /** Deletes the session's entries beyond the newest {@code historyLimit} steps. */
  static void trim(Connection connection, String sessionId, int historyLimit) throws SQLException {
    try (PreparedStatement trim = connection.prepareStatement(Sql.TRIM_HISTORY)) {
      trim.setString(1, sessionId);
      trim.setString(2, sessionId);
      trim.setInt(3, historyLimit);
      trim.executeUpdate();
    }
  }
}
