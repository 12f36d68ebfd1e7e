-- Approvals: one row per wait point, for back-office inboxes. A decided row never goes back to
-- pending (see the upsert in the store).
CREATE TABLE agent_approvals (
    approval_id  VARCHAR(64)  NOT NULL PRIMARY KEY,
    session_id   VARCHAR(255) NOT NULL,
    run          INTEGER      NOT NULL,
    step         INTEGER      NOT NULL,
    tool_call_id VARCHAR(255) NOT NULL,
    tool_name    VARCHAR(255) NOT NULL,
    input        TEXT,
    status       VARCHAR(32)  NOT NULL,
    requested_at BIGINT       NOT NULL,
    expires_at   BIGINT       NOT NULL,
    decided_at   BIGINT,
    decided_by   VARCHAR(255),
    note         TEXT,
    notified_at  BIGINT
);

CREATE INDEX agent_approvals_status_requested ON agent_approvals (status, requested_at);
CREATE INDEX agent_approvals_session ON agent_approvals (session_id);
