package io.durableagents.testing.internal;

import io.temporal.worker.NonDeterministicException;

/** The one line a report gives for a replay that threw. */
public final class ReplayFailures {
  private static final String NON_DETERMINISM = NonDeterministicException.class.getName();
  private static final int PACKAGE_PREFIX =
      NonDeterministicException.class.getPackageName().length() + 1;

  private ReplayFailures() {}

  /**
   * The non-determinism error when the cause chain holds one, else the deepest cause: the wrappers
   * only say that a workflow task failed. The SDK's replayer reports it inside the message of a
   * query failure (with its stack trace), so it is looked for there too.
   */
  public static String describe(Throwable failure) {
    Throwable root = failure;
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof NonDeterministicException) {
        return firstLine(t.getClass().getSimpleName() + ": " + t.getMessage());
      }
      String message = t.getMessage();
      int at = message == null ? -1 : message.indexOf(NON_DETERMINISM + ":");
      if (at >= 0) {
        // From the simple name on: "NonDeterministicException: [TMPRL1100] ...".
        return firstLine(message.substring(at + PACKAGE_PREFIX));
      }
      root = t;
    }
    String message = root.getMessage();
    return firstLine(
        root.getClass().getSimpleName()
            + (message == null || message.isBlank() ? "" : ": " + message));
  }

  /** Up to the first line break: what follows is a stack trace or detail. */
  private static String firstLine(String text) {
    int end = text.indexOf('\n');
    return (end < 0 ? text : text.substring(0, end)).strip();
  }
}
