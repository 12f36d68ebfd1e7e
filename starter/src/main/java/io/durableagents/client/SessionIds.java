package io.durableagents.client;

import io.durableagents.workflow.Limits;
import io.durableagents.workflow.internal.wire.ConcurrencyKeyWorkflow;
import java.util.regex.Pattern;

/**
 * Session ids are workflow ids; they are limited to a safe, printable set, outside the ids of the
 * concurrency keys' locks ({@code agents-key:KEY}).
 */
public final class SessionIds {
  private static final Pattern VALID =
      Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:@-]{0," + (Limits.SESSION_ID_CHARS - 1) + "}");

  private SessionIds() {}

  /** Returns the id, or throws {@link IllegalArgumentException} saying what is allowed. */
  public static String requireValid(String sessionId) {
    if (sessionId == null || !VALID.matcher(sessionId).matches()) {
      throw new IllegalArgumentException(
          "Invalid session id "
              + (sessionId == null ? "null" : "'" + printable(sessionId) + "'")
              + ": use 1-"
              + Limits.SESSION_ID_CHARS
              + " characters of letters, digits and . _ : @ -, starting with a letter or digit.");
    }
    if (sessionId.startsWith(ConcurrencyKeyWorkflow.ID_PREFIX)) {
      // The workflow ids of the concurrency keys' locks: a session under one would take its lock.
      throw new IllegalArgumentException(
          "Invalid session id '"
              + printable(sessionId)
              + "': ids starting with '"
              + ConcurrencyKeyWorkflow.ID_PREFIX
              + "' are reserved for the locks of concurrency keys.");
    }
    return sessionId;
  }

  private static String printable(String value) {
    StringBuilder out = new StringBuilder();
    value
        .codePoints()
        .limit(80)
        .forEach(
            cp -> {
              if (Character.isISOControl(cp) || Character.getType(cp) == Character.SURROGATE) {
                out.append(String.format("\\u%04x", cp));
              } else {
                out.appendCodePoint(cp);
              }
            });
    return value.codePointCount(0, value.length()) > 80 ? out + "..." : out.toString();
  }
}
