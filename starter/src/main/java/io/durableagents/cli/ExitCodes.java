package io.durableagents.cli;

import io.durableagents.session.RunStatus;

/** The exit codes of the {@code agents} CLI; scripts rely on them. */
public final class ExitCodes {
  /** The command did what was asked. */
  public static final int OK = 0;

  /** Something went wrong: the run failed, Temporal is unreachable, the session refused input. */
  public static final int ERROR = 1;

  /** The command line was wrong: unknown option, missing argument, invalid session id. */
  public static final int USAGE = 2;

  /** The session waits for an approval decision before it can go on. */
  public static final int AWAITING_APPROVAL = 3;

  /** There is no such session. */
  public static final int NOT_FOUND = 4;

  private ExitCodes() {}

  /**
   * The exit code for a run or session in {@code status}: {@link #ERROR} for {@code failed}, {@link
   * #AWAITING_APPROVAL} for {@code awaiting-approval}, {@link #OK} otherwise.
   */
  public static int forStatus(RunStatus status) {
    if (status == RunStatus.FAILED) {
      return ERROR;
    }
    if (status == RunStatus.AWAITING_APPROVAL) {
      return AWAITING_APPROVAL;
    }
    return OK;
  }
}
