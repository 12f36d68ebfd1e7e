package io.durableagents.store.internal;

/**
 * The store's SQL. Every statement is valid on SQLite (>= 3.24, for the upserts) and PostgreSQL.
 */
public final class Sql {
  private Sql() {}

  /**
   * The first statement of a save: a write that changes nothing. On SQLite it takes the write lock
   * up front (waiting under busy_timeout), so that the transaction never has to upgrade a read
   * snapshot to a write, which fails at once when another writer committed meanwhile; on
   * PostgreSQL it locks the session row for the execution-id check.
   */
  public static final String LOCK_SESSION =
      "UPDATE agent_sessions SET updated_at = updated_at WHERE session_id = ?";

  public static final String SELECT_EXECUTION_ID =
      "SELECT execution_id FROM agent_sessions WHERE session_id = ?";

  public static final String DELETE_MESSAGES = "DELETE FROM agent_messages WHERE session_id = ?";

  public static final String DELETE_CHECKPOINTS =
      "DELETE FROM agent_checkpoints WHERE session_id = ?";

  public static final String DELETE_APPROVALS = "DELETE FROM agent_approvals WHERE session_id = ?";

  /** A decided approval never goes back to pending: a late retried save cannot undo a decision. */
  public static final String UPSERT_APPROVAL =
      "INSERT INTO agent_approvals (approval_id, session_id, run, step, tool_call_id, tool_name,"
          + " input, status, requested_at, expires_at, decided_at, decided_by, note)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (approval_id) DO UPDATE SET"
          + " status = excluded.status, decided_at = excluded.decided_at,"
          + " decided_by = excluded.decided_by, note = excluded.note"
          + " WHERE agent_approvals.status = 'pending'";

  public static final String MARK_NOTIFIED =
      "UPDATE agent_approvals SET notified_at = ?"
          + " WHERE session_id = ? AND approval_id = ? AND notified_at IS NULL";

  private static final String SELECT_APPROVALS =
      "SELECT approval_id, session_id, run, step, tool_call_id, tool_name, input, status,"
          + " requested_at, expires_at, decided_at, decided_by, note, notified_at"
          + " FROM agent_approvals";

  public static final String SELECT_APPROVALS_ALL =
      SELECT_APPROVALS + " ORDER BY requested_at, approval_id";

  public static final String SELECT_APPROVALS_PENDING =
      SELECT_APPROVALS + " WHERE status = 'pending' ORDER BY requested_at, approval_id";

  public static final String SELECT_APPROVALS_OF_SESSION =
      SELECT_APPROVALS + " WHERE session_id = ? ORDER BY requested_at, approval_id";

  public static final String DELETE_SESSION = "DELETE FROM agent_sessions WHERE session_id = ?";

  public static final String UPSERT_MESSAGE =
      "INSERT INTO agent_messages (session_id, seq, run, step, role, body)"
          + " VALUES (?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (session_id, seq) DO UPDATE SET"
          + " run = excluded.run, step = excluded.step, role = excluded.role,"
          + " body = excluded.body";

  public static final String UPSERT_CHECKPOINT =
      "INSERT INTO agent_checkpoints (session_id, step, run, status, finish_reason,"
          + " message_count, input_tokens, output_tokens, fingerprint, saved_at)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (session_id, step) DO UPDATE SET"
          + " run = excluded.run, status = excluded.status,"
          + " finish_reason = excluded.finish_reason, message_count = excluded.message_count,"
          + " input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,"
          + " fingerprint = excluded.fingerprint, saved_at = excluded.saved_at";

  public static final String UPSERT_SESSION =
      "INSERT INTO agent_sessions (session_id, execution_id, agent, status, current_run,"
          + " last_step, message_count, input_tokens, output_tokens, fingerprint,"
          + " created_at, updated_at)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (session_id) DO UPDATE SET"
          + " execution_id = excluded.execution_id, agent = excluded.agent,"
          + " status = excluded.status, current_run = excluded.current_run,"
          + " last_step = excluded.last_step, message_count = excluded.message_count,"
          + " input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,"
          + " fingerprint = excluded.fingerprint, updated_at = excluded.updated_at"
          + " WHERE agent_sessions.last_step <= excluded.last_step";

  public static final String SELECT_MESSAGES =
      "SELECT seq, body FROM agent_messages WHERE session_id = ? AND seq < ? ORDER BY seq";

  public static final String SELECT_SESSION =
      "SELECT session_id, execution_id, agent, status, current_run, last_step, message_count,"
          + " input_tokens, output_tokens, fingerprint, created_at, updated_at"
          + " FROM agent_sessions WHERE session_id = ?";

  private static final String SELECT_HISTORY =
      "SELECT step, run, saved_at, status, finish_reason, message_count, input_tokens,"
          + " output_tokens, fingerprint FROM agent_checkpoints WHERE session_id = ?"
          + " ORDER BY step DESC";

  public static final String SELECT_HISTORY_ALL = SELECT_HISTORY;

  public static final String SELECT_HISTORY_LIMIT = SELECT_HISTORY + " LIMIT ?";
}
