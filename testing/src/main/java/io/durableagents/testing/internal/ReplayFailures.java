package io.durableagents.testing.internal;

import io.temporal.worker.NonDeterministicException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The one line a report gives for a replay that threw. */
public final class ReplayFailures {
  private static final String NON_DETERMINISM = NonDeterministicException.class.getName();
  private static final int PACKAGE_PREFIX =
      NonDeterministicException.class.getPackageName().length() + 1;

  private static final Pattern STACK_FRAME = Pattern.compile("\\R\\s*at [\\w$.<>]+\\(");

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
        return oneLine(t.getClass().getSimpleName() + ": " + t.getMessage());
      }
      String message = t.getMessage();
      int at = message == null ? -1 : message.indexOf(NON_DETERMINISM + ":");
      if (at >= 0) {
        // From the simple name on: "NonDeterministicException: [TMPRL1100] ...".
        return oneLine(message.substring(at + PACKAGE_PREFIX));
      }
      root = t;
    }
    String message = root.getMessage();
    return oneLine(
        root.getClass().getSimpleName()
            + (message == null || message.isBlank() ? "" : ": " + message));
  }

  /** On one line, without the stack trace that some of the SDK's messages carry. */
  private static String oneLine(String text) {
    Matcher frame = STACK_FRAME.matcher(text);
    String message = frame.find() ? text.substring(0, frame.start()) : text;
    return message.replaceAll("\\s*\\R\\s*", " ").strip();
  }
}
