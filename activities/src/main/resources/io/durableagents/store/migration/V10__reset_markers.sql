-- A reset moves a session back to one of its history entries. The entries after it stay, named by
-- the reset that superseded them (NULL: on the session's current line), and so do the messages
-- their transcripts need, copied aside before the session's new line writes over them. The session
-- row names the entry it was last reset to (NULL: never). One definition for SQLite and PostgreSQL.
ALTER TABLE agent_checkpoints ADD COLUMN superseded_by VARCHAR(255);
ALTER TABLE agent_sessions ADD COLUMN reset_to INTEGER;

CREATE TABLE agent_superseded_messages (
    session_id    VARCHAR(255) NOT NULL,
    superseded_by VARCHAR(255) NOT NULL,
    seq           INTEGER      NOT NULL,
    run           INTEGER      NOT NULL,
    step          INTEGER      NOT NULL,
    role          VARCHAR(32)  NOT NULL,
    body          TEXT         NOT NULL,
    PRIMARY KEY (session_id, superseded_by, seq)
);
