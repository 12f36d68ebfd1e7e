package io.durableagents.workflow;

/**
 * The sizes a client may send into a session, in one place. The client ({@code AgentClient}, the
 * CLI) checks them before anything is sent, and the workflow's update validators and signal
 * handlers check them again, so no caller (another SDK, a raw signal) can put state into a session
 * that its next workflow task could not process. docs/limits.md lists them.
 */
public final class Limits {
  /** Characters of one input: a sent message, or the input a fork appends. */
  public static final int INPUT_CHARS = 256 * 1024;

  /** Characters of a run configuration's JSON (it is saved with every checkpoint of the run). */
  public static final int RUN_CONFIG_CHARS = 16 * 1024;

  /** Characters of a session id (also a workflow id). */
  public static final int SESSION_ID_CHARS = 200;

  /** Characters of an agent name as a client names it (a new session's agent). */
  public static final int AGENT_NAME_CHARS = 200;

  /** Characters of a run's concurrency key (also part of a workflow id). */
  public static final int CONCURRENCY_KEY_CHARS = 200;

  /** Characters of an approval decision's note. */
  public static final int NOTE_CHARS = 4 * 1024;

  /** Characters of who decided an approval ({@code decidedBy}). */
  public static final int DECIDED_BY_CHARS = 200;

  /** Characters of an approval id as a client names it. */
  public static final int APPROVAL_ID_CHARS = 64;

  /** Bytes of a session's business state, serialized as JSON. */
  public static final int BUSINESS_STATE_BYTES = 64 * 1024;

  /**
   * Bytes of a trigger envelope, serialized as JSON: the envelope travels with each tool call of
   * the run it starts, several of which may start in one workflow task.
   */
  public static final int TRIGGER_BYTES = 256 * 1024;

  /**
   * Characters of a send's idempotency key: a send that repeats the key of a failed or cancelled
   * run's send resumes that run.
   */
  public static final int IDEMPOTENCY_KEY_CHARS = 200;

  /** The largest per-run model-turn budget a client may ask for ({@code maxSteps} of a send). */
  public static final int MAX_STEPS = 10_000;

  /**
   * Bytes of one serialized client request (a send, a decision, a fork): well under Temporal's 2 MB
   * payload limit and 4 MB gRPC message limit, so the server never refuses what we accept.
   */
  public static final int REQUEST_BYTES = 1024 * 1024;

  private Limits() {}
}
