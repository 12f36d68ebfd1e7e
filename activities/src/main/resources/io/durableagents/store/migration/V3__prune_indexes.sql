-- Indexes for pruning by age (AgentStore.prune): settled sessions not updated since a cutoff,
-- history entries saved before it. One definition for SQLite and PostgreSQL.
CREATE INDEX agent_sessions_updated_at ON agent_sessions (updated_at);
CREATE INDEX agent_checkpoints_saved_at ON agent_checkpoints (saved_at);
