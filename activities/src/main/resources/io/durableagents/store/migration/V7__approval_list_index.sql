-- The approvals list of every status (the back office's decided approvals), oldest request first
-- and paged by (requested_at, approval_id); the pending list uses agent_approvals_status_requested.
CREATE INDEX agent_approvals_requested ON agent_approvals (requested_at, approval_id);
