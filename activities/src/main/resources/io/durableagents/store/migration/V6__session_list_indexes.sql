-- Indexes for back-office screens (one definition for SQLite and PostgreSQL): the session list
-- filtered by status, newest activity first, and the forks taken from a session.
CREATE INDEX agent_sessions_status_updated_at ON agent_sessions (status, updated_at);
CREATE INDEX agent_sessions_parent ON agent_sessions (parent_session_id);
