-- A sub-agent session's parent call: parent_session_id names the parent session (as it names a
-- fork's source) and parent_call_id the parent's tool call the sub-agent session answers. NULL for
-- every other session.
ALTER TABLE agent_sessions ADD COLUMN parent_call_id VARCHAR(255);
