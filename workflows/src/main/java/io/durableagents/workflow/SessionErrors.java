package io.durableagents.workflow;

/**
 * Failure types the session workflow raises to callers ({@code ApplicationFailure} types), so
 * clients in any SDK can tell them apart.
 */
public final class SessionErrors {
  /** A non-empty {@code send} while a decision is pending. Details: sessionId, approvalId. */
  public static final String AWAITING_APPROVAL = "SessionAwaitingApprovalError";
  /** A decision for an approval id the session never asked for. */
  public static final String UNKNOWN_APPROVAL = "UnknownApprovalError";
  /** A decision for an approval that was already decided or expired. */
  public static final String APPROVAL_ALREADY_DECIDED = "ApprovalAlreadyDecidedError";
  /**
   * An {@code approve} whose approval id, note or {@code decidedBy} is over its limit (see {@link
   * Limits}); nothing is recorded. Details: sessionId.
   */
  public static final String INVALID_DECISION = "InvalidDecisionError";
  /** A {@code send} of messages that are neither the stored conversation nor user messages. */
  public static final String INVALID_INPUT = "InvalidInputError";
  /** An empty {@code send} on a session that has had no run. */
  public static final String NO_RUN = "NoRunError";

  private SessionErrors() {}
}
