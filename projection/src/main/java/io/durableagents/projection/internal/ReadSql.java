package io.durableagents.projection.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * The read model's SQL, valid on SQLite and PostgreSQL. Sessions and history entries are read with
 * every column ({@code *}), mapped by name: a projection from before a later migration ({@code
 * fork_patch}, {@code transcript_hash}) still reads, without them.
 */
public final class ReadSql {
  private ReadSql() {}

  /** Parameters: session, first seq (inclusive), last seq (exclusive). */
  public static final String MESSAGES =
      "SELECT seq, body FROM agent_messages WHERE session_id = ? AND seq >= ? AND seq < ?"
          + " ORDER BY seq";

  /** Parameters: session, reset, last seq (exclusive). */
  public static final String SUPERSEDED_MESSAGES =
      "SELECT seq, body FROM agent_superseded_messages WHERE session_id = ? AND superseded_by = ?"
          + " AND seq < ? ORDER BY seq";

  public static final String SESSION = "SELECT * FROM agent_sessions WHERE session_id = ?";

  /** Forks taken from a session (parameter: the parent), oldest first. */
  public static final String FORKS =
      "SELECT * FROM agent_sessions WHERE parent_session_id = ? AND parent_call_id IS NULL"
          + " ORDER BY created_at, session_id";

  /** The sub-agent sessions of a session (parameter: the parent), oldest first. */
  public static final String SUB_AGENTS =
      "SELECT * FROM agent_sessions WHERE parent_session_id = ? AND parent_call_id IS NOT NULL"
          + " ORDER BY created_at, session_id";

  /**
   * A page of the session list, newest activity first: {@code filters} is a conjunction of {@code
   * AND} conditions (possibly empty) whose parameters come first, then the limit.
   */
  public static String sessionsPage(String filters) {
    return "SELECT * FROM agent_sessions"
        + (filters.isEmpty() ? "" : " WHERE " + filters)
        + " ORDER BY updated_at DESC, session_id DESC LIMIT ?";
  }

  public static final String HISTORY =
      "SELECT * FROM agent_checkpoints WHERE session_id = ? ORDER BY step DESC";

  public static final String HISTORY_LIMIT = HISTORY + " LIMIT ?";

  /** The newest entry no reset superseded (parameter: session). */
  public static final String NEWEST_CURRENT_ENTRY =
      "SELECT * FROM agent_checkpoints WHERE session_id = ? AND superseded_by IS NULL"
          + " ORDER BY step DESC LIMIT 1";

  /** The step records of a session's entries {@code from .. to}, in the order they were taken. */
  public static final String STEPS =
      "SELECT * FROM agent_steps WHERE session_id = ? AND step BETWEEN ? AND ?"
          + " ORDER BY step, kind, ordinal";

  public static final String RUNS = "SELECT * FROM agent_runs WHERE session_id = ? ORDER BY run";

  public static final String ENTRY =
      "SELECT * FROM agent_checkpoints WHERE session_id = ? AND step = ?";

  private static final String APPROVALS =
      "SELECT approval_id, session_id, run, step, tool_call_id, tool_name, input, status,"
          + " requested_at, expires_at, decided_at, decided_by, note, notified_at"
          + " FROM agent_approvals";

  private static final String OLDEST_FIRST = " ORDER BY requested_at, approval_id";

  public static final String APPROVALS_ALL = APPROVALS + OLDEST_FIRST;

  /** How many approvals wait, and the oldest request (index agent_approvals_status_requested). */
  public static final String PENDING_APPROVALS_SUMMARY =
      "SELECT COUNT(*), MIN(requested_at) FROM agent_approvals WHERE status = 'pending'";

  public static final String APPROVALS_PENDING =
      APPROVALS + " WHERE status = 'pending'" + OLDEST_FIRST;

  public static final String APPROVALS_OF_SESSION =
      APPROVALS + " WHERE session_id = ?" + OLDEST_FIRST;

  /**
   * A page of approvals, oldest request first: pending ones only or all, after a position ({@code
   * requested_at, requested_at, approval_id}) or from the start; the last parameter is the limit.
   */
  public static String approvalsPage(boolean pendingOnly, boolean afterPosition) {
    List<String> conditions = new ArrayList<>();
    if (pendingOnly) {
      conditions.add("status = 'pending'");
    }
    if (afterPosition) {
      conditions.add("(requested_at > ? OR (requested_at = ? AND approval_id > ?))");
    }
    return APPROVALS
        + (conditions.isEmpty() ? "" : " WHERE " + String.join(" AND ", conditions))
        + OLDEST_FIRST
        + " LIMIT ?";
  }

  /**
   * Approvals of the sessions whose ids begin with a prefix (parameter: a LIKE pattern escaped with
   * {@code !}): candidates for a session's sub-agent sessions, which each must confirm.
   */
  public static final String APPROVALS_OF_SESSIONS_LIKE =
      APPROVALS + " WHERE session_id LIKE ? ESCAPE '!'" + OLDEST_FIRST;

  public static final String APPROVALS_PENDING_OF_SESSIONS_LIKE =
      APPROVALS + " WHERE session_id LIKE ? ESCAPE '!' AND status = 'pending'" + OLDEST_FIRST;

  public static final String APPROVALS_PENDING_OF_SESSION =
      APPROVALS + " WHERE session_id = ? AND status = 'pending'" + OLDEST_FIRST;
}
