package io.durableagents.workflow;

/** The states a run (and so a session) can be in; the strings are the JSON contract. */
public final class RunStatus {
  public static final String IDLE = "idle";
  public static final String IN_PROGRESS = "in-progress";
  public static final String AWAITING_APPROVAL = "awaiting-approval";
  public static final String FINISHED = "finished";
  public static final String FAILED = "failed";
  public static final String CANCELLED = "cancelled";

  private RunStatus() {}

  /** True for the states a run cannot leave. */
  public static boolean isSettled(String status) {
    return FINISHED.equals(status) || FAILED.equals(status) || CANCELLED.equals(status);
  }
}
