-- The session store: one definition valid on both SQLite (>= 3.24) and PostgreSQL.
-- Times are BIGINT epoch milliseconds, UTC. Message bodies and JSON documents are TEXT.

-- One row per session: where it is now. Never moves backwards (see last_step).
CREATE TABLE agent_sessions (
    session_id        VARCHAR(255) NOT NULL PRIMARY KEY,
    execution_id      VARCHAR(255) NOT NULL,
    agent             VARCHAR(255) NOT NULL,
    status            VARCHAR(64)  NOT NULL,
    current_run       INTEGER      NOT NULL,
    last_step         INTEGER      NOT NULL,
    message_count     INTEGER      NOT NULL,
    input_tokens      BIGINT       NOT NULL,
    output_tokens     BIGINT       NOT NULL,
    fingerprint       VARCHAR(255),
    parent_session_id VARCHAR(255),
    parent_step       INTEGER,
    created_at        BIGINT       NOT NULL,
    updated_at        BIGINT       NOT NULL
);

-- The transcript: message seq of a session, the Message as JSON.
CREATE TABLE agent_messages (
    session_id VARCHAR(255) NOT NULL,
    seq        INTEGER      NOT NULL,
    run        INTEGER      NOT NULL,
    step       INTEGER      NOT NULL,
    role       VARCHAR(32)  NOT NULL,
    body       TEXT         NOT NULL,
    PRIMARY KEY (session_id, seq)
);

-- The checkpoint history: one entry per (session, step); saving a step again replaces it.
CREATE TABLE agent_checkpoints (
    session_id     VARCHAR(255) NOT NULL,
    step           INTEGER      NOT NULL,
    run            INTEGER      NOT NULL,
    status         VARCHAR(64)  NOT NULL,
    finish_reason  VARCHAR(64),
    message_count  INTEGER      NOT NULL,
    input_tokens   BIGINT       NOT NULL,
    output_tokens  BIGINT       NOT NULL,
    business_state TEXT,
    fingerprint    VARCHAR(255),
    run_config     TEXT,
    saved_at       BIGINT       NOT NULL,
    PRIMARY KEY (session_id, step)
);

CREATE INDEX agent_checkpoints_session_saved_at ON agent_checkpoints (session_id, saved_at);
