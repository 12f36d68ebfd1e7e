package io.durableagents.workflow;

import io.temporal.failure.ApplicationFailure;
import java.util.Arrays;
import java.util.List;

/**
 * A refusal by the session workflow (update validators), readable by clients in any SDK.
 *
 * <p>The failure's message starts with {@code "<type>: "} and ends with {@code " [key=value ...]"}
 * for its details, because Java SDK 1.38 loses the type and details of a failure thrown from an
 * update validator (sdk-java issue 2875, fixed after 1.38): {@link #from(Throwable)} reads the type
 * from the failure when it survived, and from the message otherwise.
 *
 * @param type one of {@link SessionErrors}
 * @param message the human-readable reason, without the type prefix
 * @param details the values of the detail keys, in order (for {@code SessionAwaitingApprovalError}:
 *     sessionId, approvalId)
 */
public record Rejection(String type, String message, List<String> details) {

  /** Builds the failure a validator throws. Must be called from workflow code. */
  public static ApplicationFailure failure(String type, String message, String... details) {
    StringBuilder text = new StringBuilder(type).append(": ").append(message);
    if (details.length > 0) {
      text.append(" [").append(String.join(" ", details)).append(']');
    }
    return ApplicationFailure.newFailure(text.toString(), type, (Object[]) details);
  }

  /** The rejection in a client-side exception chain, or null when there is none. */
  public static Rejection from(Throwable thrown) {
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      if (t instanceof ApplicationFailure failure) {
        return parse(failure.getOriginalMessage());
      }
    }
    return null;
  }

  static Rejection parse(String text) {
    if (text == null) {
      return null;
    }
    int colon = text.indexOf(": ");
    String type = colon > 0 ? text.substring(0, colon) : "";
    if (!type.matches("[A-Za-z]+Error")) {
      return new Rejection("", text, List.of());
    }
    String rest = text.substring(colon + 2);
    List<String> details = List.of();
    if (rest.endsWith("]") && rest.lastIndexOf(" [") >= 0) {
      int open = rest.lastIndexOf(" [");
      details = Arrays.asList(rest.substring(open + 2, rest.length() - 1).split(" "));
      rest = rest.substring(0, open);
    }
    return new Rejection(type, rest, List.copyOf(details));
  }
}
