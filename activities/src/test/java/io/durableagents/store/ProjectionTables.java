package io.durableagents.store;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Every projection row of one session, read with plain JDBC, so that two databases can be compared
 * column by column (what the store's API returns could hide a difference).
 */
public record ProjectionTables(
    List<List<Object>> sessions,
    List<List<Object>> messages,
    List<List<Object>> checkpoints,
    List<List<Object>> approvals,
    List<List<Object>> steps,
    List<List<Object>> runs) {

  public static ProjectionTables read(String jdbcUrl, String sessionId) {
    try (Connection connection = DriverManager.getConnection(jdbcUrl)) {
      return new ProjectionTables(
          rows(
              connection,
              "SELECT session_id, execution_id, agent, status, current_run, last_step,"
                  + " message_count, input_tokens, output_tokens, fingerprint, parent_session_id,"
                  + " parent_step, fork_patch, transcript_hash, created_at, updated_at FROM agent_sessions"
                  + " WHERE session_id = ?",
              sessionId),
          rows(
              connection,
              "SELECT seq, run, step, role, body FROM agent_messages WHERE session_id = ?"
                  + " ORDER BY seq",
              sessionId),
          rows(
              connection,
              "SELECT step, run, status, finish_reason, message_count, input_tokens,"
                  + " output_tokens, business_state, fingerprint, run_config, transcript_hash, saved_at"
                  + " FROM agent_checkpoints WHERE session_id = ? ORDER BY step",
              sessionId),
          rows(
              connection,
              "SELECT approval_id, run, step, tool_call_id, tool_name, input, status,"
                  + " requested_at, expires_at, decided_at, decided_by, note, notified_at"
                  + " FROM agent_approvals WHERE session_id = ? ORDER BY approval_id",
              sessionId),
          rows(
              connection,
              "SELECT step, kind, ordinal, run, name, started_at, finished_at, input_tokens,"
                  + " output_tokens, error, partial_text FROM agent_steps WHERE session_id = ?"
                  + " ORDER BY step, kind, ordinal",
              sessionId),
          rows(
              connection,
              "SELECT run, status, started_at, finished_at, last_step FROM agent_runs"
                  + " WHERE session_id = ? ORDER BY run",
              sessionId));
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the projection of " + sessionId, e);
    }
  }

  private static List<List<Object>> rows(Connection connection, String sql, String sessionId)
      throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      select.setString(1, sessionId);
      try (ResultSet row = select.executeQuery()) {
        int columns = row.getMetaData().getColumnCount();
        while (row.next()) {
          List<Object> values = new ArrayList<>(columns);
          for (int column = 1; column <= columns; column++) {
            Object value = row.getObject(column);
            // SQLite reports small integers as Integer and PostgreSQL BIGINT as Long: compare
            // numbers by value.
            values.add(value instanceof Number number ? (Object) number.longValue() : value);
          }
          rows.add(values);
        }
      }
    }
    return rows;
  }
}
