-- The patch summary of a forked session (e.g. "businessState toolResult(call_0_0)"), next to its
-- parent_session_id and parent_step. One definition for SQLite and PostgreSQL.
ALTER TABLE agent_sessions ADD COLUMN fork_patch TEXT;
