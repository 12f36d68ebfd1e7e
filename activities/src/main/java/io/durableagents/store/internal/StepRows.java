package io.durableagents.store.internal;

import static io.durableagents.store.internal.JdbcStatements.setNullableString;

import io.durableagents.session.RunStatus;
import io.durableagents.session.StepRecord;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;

/**
 * Writes tables {@code agent_steps} (a row per model turn and tool result, keyed by the entry that
 * recorded it) and {@code agent_runs} (a row per run: when it started, and when it settled). A
 * retried save rewrites the same rows; a late retry of an older save never moves a run back.
 */
final class StepRows {
  private StepRows() {}

  /** The save's step records and its run's row. */
  static void upsert(Connection connection, EncodedSave encoded) throws SQLException {
    CheckpointSave save = encoded.save();
    if (!save.steps().isEmpty()) {
      try (PreparedStatement upsert = connection.prepareStatement(Sql.UPSERT_STEP)) {
        for (CheckpointSave.Step step : save.steps()) {
          bindStep(upsert, save, step);
          upsert.addBatch();
        }
        upsert.executeBatch();
      }
    }
    if (save.run() > 0) {
      upsertRun(connection, encoded);
    }
  }

  private static void bindStep(
      PreparedStatement upsert, CheckpointSave save, CheckpointSave.Step step) throws SQLException {
    StepRecord record = step.record();
    upsert.setString(1, save.sessionId());
    upsert.setInt(2, save.step());
    upsert.setString(3, record.kind());
    upsert.setInt(4, step.position());
    upsert.setInt(5, save.run());
    setNullableString(upsert, 6, record.name());
    setNullableLong(upsert, 7, record.startedAt());
    setNullableLong(upsert, 8, record.finishedAt());
    upsert.setLong(9, record.usage().inputTokens());
    upsert.setLong(10, record.usage().outputTokens());
    setNullableString(upsert, 11, record.error());
    setNullableString(upsert, 12, record.text());
  }

  /**
   * The run's row: started at its first entry's run start (the workflow time the run started; the
   * entry's own time for saves that do not carry it), finished at its settling entry's time.
   */
  private static void upsertRun(Connection connection, EncodedSave encoded) throws SQLException {
    CheckpointSave save = encoded.save();
    Long runStart = save.runInfo() == null ? null : save.runInfo().startedAt();
    try (PreparedStatement upsert = connection.prepareStatement(Sql.UPSERT_RUN)) {
      upsert.setString(1, save.sessionId());
      upsert.setInt(2, save.run());
      upsert.setString(3, save.status().value());
      upsert.setLong(4, runStart == null ? encoded.stamp() : Math.min(runStart, encoded.stamp()));
      setNullableLong(upsert, 5, RunStatus.settled(save.status()) ? encoded.stamp() : null);
      upsert.setInt(6, save.step());
      upsert.executeUpdate();
    }
  }

  private static void setNullableLong(PreparedStatement statement, int index, Long value)
      throws SQLException {
    if (value == null) {
      statement.setNull(index, Types.BIGINT);
    } else {
      statement.setLong(index, value);
    }
  }
}
