-- What runs record of themselves (one definition for SQLite and PostgreSQL):
-- the agent definitions runs started under, by fingerprint (written once, never changed);
-- and on each history entry and session row the run's configuration and the drift a worker
-- reported, plus on each entry the model turns and tokens its run has used, which a fork continues.
CREATE TABLE agent_definitions (
    fingerprint VARCHAR(255) NOT NULL PRIMARY KEY,
    agent       VARCHAR(255) NOT NULL,
    definition  TEXT         NOT NULL,
    created_at  BIGINT       NOT NULL
);

ALTER TABLE agent_checkpoints ADD COLUMN run_steps INTEGER;
ALTER TABLE agent_checkpoints ADD COLUMN run_input_tokens BIGINT;
ALTER TABLE agent_checkpoints ADD COLUMN run_output_tokens BIGINT;
ALTER TABLE agent_checkpoints ADD COLUMN drift TEXT;
ALTER TABLE agent_sessions ADD COLUMN run_config TEXT;
ALTER TABLE agent_sessions ADD COLUMN drift TEXT;
