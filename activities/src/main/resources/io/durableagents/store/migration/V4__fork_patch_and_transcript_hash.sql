-- The patch summary of a forked session (e.g. "businessState toolResult(call_0_0)"), next to its
-- parent_session_id and parent_step; and the hash chain of the transcript at each history entry
-- and at the session's newest one, so a fork from an entry need not hash the transcript again.
-- One definition for SQLite and PostgreSQL.
ALTER TABLE agent_sessions ADD COLUMN fork_patch TEXT;
ALTER TABLE agent_sessions ADD COLUMN transcript_hash VARCHAR(64);
ALTER TABLE agent_checkpoints ADD COLUMN transcript_hash VARCHAR(64);
