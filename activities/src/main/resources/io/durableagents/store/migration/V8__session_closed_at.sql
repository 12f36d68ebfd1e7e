-- When a session's workflow closed (by a client or by its idle timeout); NULL while it is open.
-- A send that starts the session again clears it.
ALTER TABLE agent_sessions ADD COLUMN closed_at BIGINT;
