-- Step records (one definition for SQLite and PostgreSQL): a row per model turn and per tool
-- result, saved with the history entry that recorded it, with the worker's wall-clock times
-- around it; and a row per run with the workflow times it started and settled.
CREATE TABLE agent_steps (
    session_id    VARCHAR(255) NOT NULL,
    step          INTEGER      NOT NULL,
    kind          VARCHAR(16)  NOT NULL,
    ordinal       INTEGER      NOT NULL,
    run           INTEGER      NOT NULL,
    name          VARCHAR(255),
    started_at    BIGINT,
    finished_at   BIGINT,
    input_tokens  BIGINT       NOT NULL,
    output_tokens BIGINT       NOT NULL,
    error         TEXT,
    partial_text  TEXT,
    PRIMARY KEY (session_id, step, kind, ordinal)
);

CREATE TABLE agent_runs (
    session_id  VARCHAR(255) NOT NULL,
    run         INTEGER      NOT NULL,
    status      VARCHAR(32)  NOT NULL,
    started_at  BIGINT       NOT NULL,
    finished_at BIGINT,
    last_step   INTEGER      NOT NULL,
    PRIMARY KEY (session_id, run)
);
