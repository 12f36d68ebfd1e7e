package io.durableagents.projection.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Usage;
import io.durableagents.projection.ProjectionException;
import io.durableagents.session.Approval;
import io.durableagents.session.ApprovalStatus;
import io.durableagents.session.RunRecord;
import io.durableagents.session.RunStatus;
import io.durableagents.session.StepRecord;
import io.durableagents.session.internal.ApprovalRecord;
import java.io.IOException;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;

/** Maps the rows of the projection tables to the read model's records. */
public final class Rows {
  /** Lenient: a message JSON may carry properties a newer version added. */
  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private Rows() {}

  /** A row of {@code SELECT * FROM agent_steps}. */
  public static StepRecord step(ResultSet row) throws SQLException {
    return new StepRecord(
        row.getString("kind"),
        row.getString("name"),
        nullableLong(row, "started_at"),
        nullableLong(row, "finished_at"),
        new Usage(row.getLong("input_tokens"), row.getLong("output_tokens")),
        row.getString("error"),
        row.getString("partial_text"));
  }

  /** A row of {@code SELECT * FROM agent_runs}. */
  public static RunRecord run(ResultSet row) throws SQLException {
    return new RunRecord(
        row.getInt("run"),
        RunStatus.fromValue(row.getString("status")),
        row.getLong("started_at"),
        nullableLong(row, "finished_at"));
  }

  private static Long nullableLong(ResultSet row, String column) throws SQLException {
    long value = row.getLong(column);
    return row.wasNull() ? null : value;
  }

  /** A row of {@code SELECT * FROM agent_sessions}. */
  public static StoredSession session(ResultSet row) throws SQLException {
    int parentStep = row.getInt("parent_step");
    Integer lineageStep = row.wasNull() ? null : parentStep;
    return new StoredSession(
        row.getString("session_id"),
        row.getString("execution_id"),
        row.getString("agent"),
        RunStatus.fromValue(row.getString("status")),
        row.getInt("current_run"),
        row.getInt("last_step"),
        row.getInt("message_count"),
        usage(row),
        row.getString("fingerprint"),
        row.getLong("created_at"),
        row.getLong("updated_at"),
        row.getString("parent_session_id"),
        lineageStep,
        hasColumn(row, "fork_patch") ? row.getString("fork_patch") : null,
        hasColumn(row, "run_config") ? jsonColumn(row.getString("run_config")) : null,
        hasColumn(row, "drift") ? row.getString("drift") : null,
        closedAt(row),
        nullableInt(row, "reset_to"),
        hasColumn(row, "parent_call_id") ? row.getString("parent_call_id") : null);
  }

  /** An integer column that may be NULL, or absent from a projection older than it. */
  private static Integer nullableInt(ResultSet row, String column) throws SQLException {
    if (!hasColumn(row, column)) {
      return null;
    }
    int value = row.getInt(column);
    return row.wasNull() ? null : value;
  }

  private static Long closedAt(ResultSet row) throws SQLException {
    if (!hasColumn(row, "closed_at")) {
      return null;
    }
    long closedAt = row.getLong("closed_at");
    return row.wasNull() ? null : closedAt;
  }

  /**
   * A row of {@code SELECT * FROM agent_checkpoints}.
   *
   * @param withHash whether the result has the {@code transcript_hash} column ({@link #hasColumn}),
   *     asked once per result rather than per row
   * @param withRun whether it has the run columns ({@code run_steps} and the rest)
   */
  public static StoredEntry entry(ResultSet row, boolean withHash, boolean withRun)
      throws SQLException {
    Integer runSteps = null;
    Usage runUsage = null;
    if (withRun) {
      int steps = row.getInt("run_steps");
      if (!row.wasNull()) {
        runSteps = steps;
        runUsage = new Usage(row.getLong("run_input_tokens"), row.getLong("run_output_tokens"));
      }
    }
    return new StoredEntry(
        row.getInt("step"),
        row.getInt("run"),
        row.getLong("saved_at"),
        RunStatus.fromValue(row.getString("status")),
        row.getString("finish_reason"),
        row.getInt("message_count"),
        usage(row),
        row.getString("fingerprint"),
        jsonColumn(row.getString("business_state")),
        withHash ? row.getString("transcript_hash") : null,
        runSteps,
        runUsage,
        withRun ? jsonColumn(row.getString("run_config")) : null,
        withRun ? row.getString("drift") : null,
        hasColumn(row, "superseded_by") ? row.getString("superseded_by") : null);
  }

  /** A row of {@code agent_approvals}. */
  public static StoredApproval approval(ResultSet row) throws SQLException {
    Approval approval =
        new Approval(
            row.getString("approval_id"),
            row.getString("tool_call_id"),
            row.getString("tool_name"),
            lenientJson(row.getString("input")),
            row.getLong("requested_at"),
            row.getLong("expires_at"));
    ApprovalRecord record =
        new ApprovalRecord(
            approval,
            row.getInt("run"),
            row.getInt("step"),
            ApprovalStatus.fromValue(row.getString("status")),
            row.getLong("decided_at"),
            row.getString("decided_by"),
            row.getString("note"),
            row.getLong("notified_at"));
    return new StoredApproval(row.getString("session_id"), record);
  }

  /** Message {@code seq}'s body, from the database's text. */
  public static Message message(String sessionId, int seq, String body) {
    try {
      return nonNull(sessionId, seq, JSON.readValue(body, Message.class));
    } catch (JsonProcessingException e) {
      throw invalid(sessionId, seq, e);
    }
  }

  /** {@link #message(String, int, String)} from the body's UTF-8 bytes: no String built first. */
  public static Message message(String sessionId, int seq, byte[] utf8Body) {
    try {
      return nonNull(sessionId, seq, JSON.readValue(utf8Body, Message.class));
    } catch (IOException e) {
      throw invalid(sessionId, seq, e);
    }
  }

  /** Whether the result has {@code column}: one a later migration added may be missing. */
  public static boolean hasColumn(ResultSet result, String column) throws SQLException {
    ResultSetMetaData meta = result.getMetaData();
    for (int i = 1; i <= meta.getColumnCount(); i++) {
      if (meta.getColumnName(i).equalsIgnoreCase(column)) {
        return true;
      }
    }
    return false;
  }

  private static Usage usage(ResultSet row) throws SQLException {
    return new Usage(row.getLong("input_tokens"), row.getLong("output_tokens"));
  }

  private static Message nonNull(String sessionId, int seq, Message message) {
    if (message == null) {
      throw new ProjectionException(
          "message " + seq + " of session " + sessionId + " is stored as JSON null");
    }
    return message;
  }

  private static ProjectionException invalid(String sessionId, int seq, IOException e) {
    return new ProjectionException(
        "message " + seq + " of session " + sessionId + " is not a valid message JSON", e);
  }

  /** A JSON document the store wrote (business state): null stays null, other text is an error. */
  private static JsonNode jsonColumn(String text) {
    if (text == null) {
      return null;
    }
    try {
      return JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new ProjectionException("a stored JSON column is not valid JSON", e);
    }
  }

  /**
   * A tool call's arguments as the model sent them: null stays null, text that is not JSON reads as
   * a JSON string rather than hiding the approval from the inbox.
   */
  private static JsonNode lenientJson(String text) {
    if (text == null) {
      return null;
    }
    try {
      return JSON.readTree(text);
    } catch (JsonProcessingException e) {
      return JSON.getNodeFactory().textNode(text);
    }
  }
}
