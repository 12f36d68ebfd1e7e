package io.durableagents.workflow;

import io.durableagents.workflow.internal.wire.ErrorResults;

/**
 * Every failure type the product raises, in one place and one scheme (lower snake case): the {@code
 * ApplicationFailure} types of refused updates, which clients in any SDK match on, and the codes of
 * a failed run ({@code RunResult.error().code()}) and of the plugin's activities. A {@code
 * ModelProvider} may report codes of its own; those below are the product's.
 *
 * <p>The error results a model sees for a tool call ({@code {"error": "rejected"}}) are another
 * vocabulary: {@link ErrorResults}.
 */
public final class FailureTypes {
  // ---- refused updates (send, approve, forkPrepared) ----------------------------------------

  /** A non-empty {@code send} while a decision is pending. Details: sessionId, approvalId. */
  public static final String SESSION_AWAITING_APPROVAL = "session_awaiting_approval";

  /** A decision for an approval id the session never asked for. */
  public static final String UNKNOWN_APPROVAL = "unknown_approval";

  /** A decision for an approval that was already decided or expired. */
  public static final String APPROVAL_ALREADY_DECIDED = "approval_already_decided";

  /**
   * An {@code approve} whose approval id, note or {@code decidedBy} is over its limit (see {@link
   * Limits}); nothing is recorded. Details: sessionId.
   */
  public static final String INVALID_DECISION = "invalid_decision";

  /** A {@code send} of messages that are neither the stored conversation nor user messages. */
  public static final String INVALID_INPUT = "invalid_input";

  /** An empty {@code send} on a session that has had no run. */
  public static final String NO_RUN = "no_run";

  /**
   * A {@code send} that reached a session whose close was accepted: it completes without running
   * it. A client sends it again once the workflow completed, which starts the session again.
   */
  public static final String SESSION_CLOSING = "session_closing";

  /**
   * A {@code close} of a session with a pending approval, without {@code force}. Details:
   * sessionId, approvalId.
   */
  public static final String CLOSE_NEEDS_FORCE = "close_needs_force";

  /** A {@code close} that started a workflow for a session id the store does not know. */
  public static final String SESSION_NOT_FOUND = "session_not_found";

  // ---- a failed run, and the activities behind it ---------------------------------------------

  /** The session names an agent the worker does not have; not retried. */
  public static final String UNKNOWN_AGENT = "unknown_agent";

  /** The agent could not be resolved at the start of a run. */
  public static final String AGENT_UNAVAILABLE = "agent_unavailable";

  /**
   * The run resumed on a worker whose definition of its agent differs from the one the run
   * recorded, and the agent's {@code onAgentDrift} policy is {@code error}; the message names what
   * changed. Not retried.
   */
  public static final String AGENT_DRIFT = "agent_drift";

  /** A model turn failed for a reason the provider did not name. */
  public static final String MODEL_ERROR = "model_error";

  /** The provider refused the request as invalid; not retried. */
  public static final String MODEL_REQUEST_INVALID = "model_request_invalid";

  /**
   * The provider refused the request as longer than the model's context window (or its request
   * size); not retried: the same transcript is refused again.
   */
  public static final String CONTEXT_EXCEEDED = "context_exceeded";

  /** The provider's answer is not usable (see {@code ModelResponse#problems()}); not retried. */
  public static final String MODEL_RESPONSE_INVALID = "model_response_invalid";

  /** A streamed answer ended before its end marker; not retried. */
  public static final String INCOMPLETE_RESPONSE = "incomplete_response";

  /** The provider rate-limits; retried after the delay it asks for. */
  public static final String MODEL_RATE_LIMITED = "model_rate_limited";

  /** The provider failed or could not be reached; retried. */
  public static final String MODEL_UNAVAILABLE = "model_unavailable";

  /** The model sent nothing for longer than the provider's idle timeout; retried. */
  public static final String MODEL_TIMEOUT = "model_timeout";

  /** A provider call stopped half-way (cancel, lost connection); retried. */
  public static final String MODEL_INTERRUPTED = "model_interrupted";

  /** A final answer does not satisfy the agent's output schema. */
  public static final String INVALID_OUTPUT = "invalid_output";

  /** The run exceeded its {@code runTimeout}. */
  public static final String RUN_TIMEOUT = "run_timeout";

  /** The model's answer is over the plugin's payload bound; not retried. */
  public static final String PAYLOAD_TOO_LARGE = "payload_too_large";

  /** The store cannot be reached: the workflow waits it out, never a failed run. */
  public static final String STORE_UNAVAILABLE = "store_unavailable";

  /** The store lacks rows the history says it has (repair: {@code agents projection rebuild}). */
  public static final String STORE_INCONSISTENT = "store_inconsistent";

  /** A turn reached a worker that cannot continue or write the held saves: sent again. */
  public static final String HELD_SAVES_UNKNOWN = "held_saves_unknown";

  /** An attachment or stored tool result names an artifact the artifact store does not have. */
  public static final String ARTIFACT_NOT_FOUND = "artifact_not_found";

  /** A stored tool result could not be read back; retried. */
  public static final String STORED_RESULT_UNREADABLE = "stored_result_unreadable";

  /** A tool failed transiently; its retry policy applies. */
  public static final String TOOL_TRANSIENT = "tool_transient";

  /** A fork names a step its source does not keep; the message lists the kept steps. */
  public static final String CHECKPOINT_NOT_FOUND = "checkpoint_not_found";

  /** A fork's patch cannot apply: over a limit, or naming a call the entry does not have. */
  public static final String INVALID_PATCH = "invalid_patch";

  private FailureTypes() {}
}
