package io.durableagents.store.internal;

/**
 * The store's writing SQL and what its writes read first. Every statement is valid on SQLite (>=
 * 3.24, for the upserts) and PostgreSQL. The reads of the projection are the read model's ({@link
 * io.durableagents.projection.internal.ProjectionQueries}), shared with the client's reader.
 */
public final class Sql {
  private Sql() {}

  /**
   * The first statement of a save: a write that changes nothing. On SQLite it takes the write lock
   * up front (waiting under busy_timeout), so that the transaction never has to upgrade a read
   * snapshot to a write, which fails at once when another writer committed meanwhile; on PostgreSQL
   * it locks the session row for the execution-id check.
   */
  public static final String LOCK_SESSION =
      "UPDATE agent_sessions SET updated_at = updated_at WHERE session_id = ?";

  public static final String SELECT_EXECUTION_ID =
      "SELECT execution_id, created_at, last_step, message_count, transcript_hash FROM agent_sessions"
          + " WHERE session_id = ?";

  /** The hash chain kept with an entry whose transcript has the given length. */
  public static final String SELECT_CHAIN_AT =
      "SELECT transcript_hash FROM agent_checkpoints WHERE session_id = ? AND message_count = ?"
          + " AND transcript_hash IS NOT NULL AND superseded_by IS NULL ORDER BY step DESC LIMIT 1";

  public static final String DELETE_MESSAGES = "DELETE FROM agent_messages WHERE session_id = ?";

  public static final String DELETE_CHECKPOINTS =
      "DELETE FROM agent_checkpoints WHERE session_id = ?";

  public static final String DELETE_APPROVALS = "DELETE FROM agent_approvals WHERE session_id = ?";

  /**
   * A decided approval never goes back to pending: a late retried save cannot undo a decision. A
   * pending one takes the times of the latest save: a pause saved by a workflow task that was then
   * lost is saved again, under the same id, with the times its history records.
   */
  public static final String UPSERT_APPROVAL =
      "INSERT INTO agent_approvals (approval_id, session_id, run, step, tool_call_id, tool_name,"
          + " input, status, requested_at, expires_at, decided_at, decided_by, note)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (approval_id) DO UPDATE SET"
          + " requested_at = excluded.requested_at, expires_at = excluded.expires_at,"
          + " status = excluded.status, decided_at = excluded.decided_at,"
          + " decided_by = excluded.decided_by, note = excluded.note"
          + " WHERE agent_approvals.status = 'pending'";

  public static final String MARK_NOTIFIED =
      "UPDATE agent_approvals SET notified_at = ?"
          + " WHERE session_id = ? AND approval_id = ? AND notified_at IS NULL";

  public static final String DELETE_SESSION = "DELETE FROM agent_sessions WHERE session_id = ?";

  public static final String UPSERT_MESSAGE =
      "INSERT INTO agent_messages (session_id, seq, run, step, role, body)"
          + " VALUES (?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (session_id, seq) DO UPDATE SET"
          + " run = excluded.run, step = excluded.step, role = excluded.role,"
          + " body = excluded.body";

  /**
   * A fork's copy of the first messages of another session, as stored (bodies are not decoded):
   * params fork session, run, step, source session, count.
   */
  public static final String COPY_MESSAGES =
      "INSERT INTO agent_messages (session_id, seq, run, step, role, body)"
          + " SELECT CAST(? AS VARCHAR(255)), seq, CAST(? AS INTEGER), CAST(? AS INTEGER), role, body"
          + " FROM agent_messages WHERE session_id = ? AND seq < ?"
          + " ON CONFLICT (session_id, seq) DO UPDATE SET"
          + " run = excluded.run, step = excluded.step, role = excluded.role,"
          + " body = excluded.body";

  public static final String UPSERT_CHECKPOINT =
      "INSERT INTO agent_checkpoints (session_id, step, run, status, finish_reason,"
          + " message_count, input_tokens, output_tokens, fingerprint, saved_at, business_state,"
          + " transcript_hash, run_steps, run_input_tokens, run_output_tokens, run_config, drift)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (session_id, step) DO UPDATE SET"
          + " run = excluded.run, status = excluded.status,"
          + " finish_reason = excluded.finish_reason, message_count = excluded.message_count,"
          + " input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,"
          + " fingerprint = excluded.fingerprint, saved_at = excluded.saved_at,"
          + " business_state = excluded.business_state, transcript_hash = excluded.transcript_hash,"
          + " run_steps = excluded.run_steps, run_input_tokens = excluded.run_input_tokens,"
          + " run_output_tokens = excluded.run_output_tokens, run_config = excluded.run_config,"
          + " drift = excluded.drift"
          // A late retry of an earlier save of this step never undoes a newer one.
          + " WHERE agent_checkpoints.saved_at <= excluded.saved_at";

  /** A step record: the same on every save of its entry, so a retry rewrites it unchanged. */
  public static final String UPSERT_STEP =
      "INSERT INTO agent_steps (session_id, step, kind, ordinal, run, name, started_at,"
          + " finished_at, input_tokens, output_tokens, error, partial_text)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (session_id, step, kind, ordinal) DO UPDATE SET"
          + " run = excluded.run, name = excluded.name, started_at = excluded.started_at,"
          + " finished_at = excluded.finished_at, input_tokens = excluded.input_tokens,"
          + " output_tokens = excluded.output_tokens, error = excluded.error,"
          + " partial_text = excluded.partial_text";

  /**
   * A run's row: the earliest start any of its saves reported (a run picked up after
   * continue-as-new reports a later one); status and finish time of its newest entry, so a late
   * retry of an older save never moves the run back, and a resumed run is unfinished again.
   */
  public static final String UPSERT_RUN =
      "INSERT INTO agent_runs (session_id, run, status, started_at, finished_at, last_step)"
          + " VALUES (?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (session_id, run) DO UPDATE SET"
          + " started_at = CASE WHEN excluded.started_at < agent_runs.started_at"
          + " THEN excluded.started_at ELSE agent_runs.started_at END,"
          + " status = CASE WHEN excluded.last_step >= agent_runs.last_step"
          + " THEN excluded.status ELSE agent_runs.status END,"
          + " finished_at = CASE WHEN excluded.last_step >= agent_runs.last_step"
          + " THEN excluded.finished_at ELSE agent_runs.finished_at END,"
          + " last_step = CASE WHEN excluded.last_step >= agent_runs.last_step"
          + " THEN excluded.last_step ELSE agent_runs.last_step END";

  public static final String DELETE_STEPS = "DELETE FROM agent_steps WHERE session_id = ?";

  public static final String DELETE_STEPS_FROM =
      "DELETE FROM agent_steps WHERE session_id = ? AND step >= ?";

  public static final String DELETE_RUNS = "DELETE FROM agent_runs WHERE session_id = ?";

  /** The step records of a session's entries that the history no longer holds (param: session). */
  public static final String DELETE_STEPS_PAST_HISTORY =
      "DELETE FROM agent_steps WHERE session_id = ? AND NOT EXISTS (SELECT 1 FROM"
          + " agent_checkpoints c WHERE c.session_id = agent_steps.session_id"
          + " AND c.step = agent_steps.step)";

  /** A definition is written once: its fingerprint names its content. */
  public static final String INSERT_DEFINITION =
      "INSERT INTO agent_definitions (fingerprint, agent, definition, created_at)"
          + " VALUES (?, ?, ?, ?) ON CONFLICT (fingerprint) DO NOTHING";

  public static final String SELECT_DEFINITION =
      "SELECT definition FROM agent_definitions WHERE fingerprint = ?";

  public static final String UPSERT_SESSION =
      "INSERT INTO agent_sessions (session_id, execution_id, agent, status, current_run,"
          + " last_step, message_count, input_tokens, output_tokens, fingerprint,"
          + " created_at, updated_at, transcript_hash, run_config, drift)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (session_id) DO UPDATE SET"
          + " execution_id = excluded.execution_id, agent = excluded.agent,"
          + " status = excluded.status, current_run = excluded.current_run,"
          + " last_step = excluded.last_step, message_count = excluded.message_count,"
          + " input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,"
          + " fingerprint = excluded.fingerprint, updated_at = excluded.updated_at,"
          + " transcript_hash = excluded.transcript_hash, run_config = excluded.run_config,"
          + " drift = excluded.drift"
          + " WHERE agent_sessions.last_step < excluded.last_step"
          + " OR (agent_sessions.last_step = excluded.last_step"
          + " AND agent_sessions.updated_at <= excluded.updated_at)";

  /**
   * Deletes the history entries of a session beyond the newest N steps (parameters: session,
   * session, N). When the session has N entries or fewer the subquery has no row, the comparison is
   * NULL and nothing is deleted.
   */
  public static final String TRIM_HISTORY =
      "DELETE FROM agent_checkpoints WHERE session_id = ? AND step <= ("
          + "SELECT step FROM agent_checkpoints WHERE session_id = ?"
          + " ORDER BY step DESC LIMIT 1 OFFSET ?)";

  public static final String DELETE_MESSAGES_FROM =
      "DELETE FROM agent_messages WHERE session_id = ? AND seq >= ?";

  public static final String DELETE_CHECKPOINTS_FROM =
      "DELETE FROM agent_checkpoints WHERE session_id = ? AND step >= ?";

  public static final String COUNT_MESSAGES_BELOW =
      "SELECT COUNT(*) FROM agent_messages WHERE session_id = ? AND seq < ?";

  /** Sessions prune may remove: settled, and not updated since the cutoff (parameter: cutoff). */
  private static final String PRUNABLE_SESSIONS =
      "SELECT session_id FROM agent_sessions WHERE updated_at < ?"
          + " AND status NOT IN ('in-progress', 'awaiting-approval')";

  public static final String PRUNE_SESSION_MESSAGES =
      "DELETE FROM agent_messages WHERE session_id IN (" + PRUNABLE_SESSIONS + ")";

  public static final String PRUNE_SESSION_CHECKPOINTS =
      "DELETE FROM agent_checkpoints WHERE session_id IN (" + PRUNABLE_SESSIONS + ")";

  public static final String PRUNE_SESSION_APPROVALS =
      "DELETE FROM agent_approvals WHERE session_id IN (" + PRUNABLE_SESSIONS + ")";

  public static final String PRUNE_SESSION_RUNS =
      "DELETE FROM agent_runs WHERE session_id IN (" + PRUNABLE_SESSIONS + ")";

  public static final String PRUNE_SESSIONS =
      "DELETE FROM agent_sessions WHERE updated_at < ?"
          + " AND status NOT IN ('in-progress', 'awaiting-approval')";

  public static final String PRUNE_CHECKPOINTS = "DELETE FROM agent_checkpoints WHERE saved_at < ?";

  /** Step records whose history entry is gone (pruned or trimmed). */
  public static final String PRUNE_ORPHAN_STEPS =
      "DELETE FROM agent_steps WHERE NOT EXISTS (SELECT 1 FROM agent_checkpoints c"
          + " WHERE c.session_id = agent_steps.session_id AND c.step = agent_steps.step)";

  /** Messages that neither a session row nor a history entry refers to. */
  public static final String PRUNE_ORPHAN_MESSAGES =
      "DELETE FROM agent_messages WHERE NOT EXISTS ("
          + "SELECT 1 FROM agent_sessions s WHERE s.session_id = agent_messages.session_id)"
          + " AND NOT EXISTS ("
          + "SELECT 1 FROM agent_checkpoints c WHERE c.session_id = agent_messages.session_id)";

  /**
   * Messages kept aside for superseded entries (by a reset, or retired by a delete that kept the
   * history) that no entry refers to any more.
   */
  public static final String PRUNE_ORPHAN_SUPERSEDED_MESSAGES =
      "DELETE FROM agent_superseded_messages WHERE NOT EXISTS (SELECT 1 FROM agent_checkpoints c"
          + " WHERE c.session_id = agent_superseded_messages.session_id"
          + " AND c.superseded_by = agent_superseded_messages.superseded_by)";

  /**
   * A new workflow execution takes a closed session over (parameters: execution id, session): its
   * saves continue the session's rows instead of replacing them, and the session is open again.
   */
  public static final String ADOPT_SESSION =
      "UPDATE agent_sessions SET execution_id = ?, closed_at = NULL WHERE session_id = ?";

  /**
   * A reset's copy of the messages the entries it supersedes need (parameters: reset, session,
   * session, reset step): the session's first messages up to the longest transcript among its
   * entries after the reset step that no earlier reset superseded.
   */
  public static final String COPY_SUPERSEDED_MESSAGES =
      "INSERT INTO agent_superseded_messages (session_id, superseded_by, seq, run, step, role, body)"
          + " SELECT session_id, CAST(? AS VARCHAR(255)), seq, run, step, role, body"
          + " FROM agent_messages WHERE session_id = ? AND seq < COALESCE("
          + "(SELECT MAX(message_count) FROM agent_checkpoints WHERE session_id = ? AND step > ?"
          + " AND superseded_by IS NULL), 0)"
          + " ON CONFLICT (session_id, superseded_by, seq) DO NOTHING";

  /** Marks the entries after a reset step superseded (parameters: reset, session, step). */
  public static final String SUPERSEDE_ENTRIES =
      "UPDATE agent_checkpoints SET superseded_by = ?"
          + " WHERE session_id = ? AND step > ? AND superseded_by IS NULL";

  /**
   * A reset's workflow execution takes the session over, standing at the reset entry again
   * (parameters: execution id, status, message count, transcript hash, input and output tokens,
   * reset step, session). The row keeps its newest step, so the new line's entries are numbered
   * after the superseded ones.
   */
  public static final String RESET_SESSION =
      "UPDATE agent_sessions SET execution_id = ?, closed_at = NULL, status = ?,"
          + " message_count = ?, transcript_hash = ?, input_tokens = ?, output_tokens = ?,"
          + " reset_to = ? WHERE session_id = ?";

  public static final String DELETE_SUPERSEDED_MESSAGES =
      "DELETE FROM agent_superseded_messages WHERE session_id = ?";

  /** Marks a session closed (parameters: closed at, session, execution id). */
  public static final String MARK_CLOSED =
      "UPDATE agent_sessions SET closed_at = ? WHERE session_id = ? AND execution_id = ?";

  /** The lineage of a forked session, on the row of the fork's own execution only. */
  public static final String SET_LINEAGE =
      "UPDATE agent_sessions SET parent_session_id = ?, parent_step = ?, fork_patch = ?"
          + " WHERE session_id = ? AND execution_id = ?";

  /**
   * A sub-agent session's parent and call (parameters: parent session, call, session), written with
   * its saves; never changed once set.
   */
  public static final String SET_SUB_AGENT_LINK =
      "UPDATE agent_sessions SET parent_session_id = ?, parent_call_id = ?"
          + " WHERE session_id = ? AND parent_call_id IS NULL";
}
