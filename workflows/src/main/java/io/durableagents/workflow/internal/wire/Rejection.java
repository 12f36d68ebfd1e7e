package io.durableagents.workflow.internal.wire;

import io.durableagents.workflow.FailureTypes;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.UpdateInfo;
import io.temporal.workflow.Workflow;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;

/**
 * A refusal by the session workflow (update validators), readable by clients in any SDK.
 *
 * <p>The failure's message starts with {@code "<type>: "} and ends with {@code " [value ...]"} for
 * its details: Java SDK 1.38 loses the type and details of a failure thrown from an update
 * validator (sdk-java issue 2875, fixed after 1.38), and a validator throws a plain {@link Refused}
 * anyway (see {@link #failure}), so the message is what every SDK receives; {@link
 * #from(Throwable)} reads it.
 *
 * @param type one of {@link FailureTypes}
 * @param message the human-readable reason, without the type prefix
 * @param details the values of the detail keys, in order (for {@code session_awaiting_approval}:
 *     sessionId, approvalId)
 */
public record Rejection(String type, String message, List<String> details) {
  /** The failure types a session's update validators refuse with. */
  private static final Set<String> TYPES =
      Set.of(
          FailureTypes.SESSION_AWAITING_APPROVAL,
          FailureTypes.UNKNOWN_APPROVAL,
          FailureTypes.APPROVAL_ALREADY_DECIDED,
          FailureTypes.INVALID_DECISION,
          FailureTypes.INVALID_INPUT,
          FailureTypes.NO_RUN,
          FailureTypes.SESSION_CLOSING,
          FailureTypes.CLOSE_NEEDS_FORCE,
          FailureTypes.SESSION_NOT_FOUND);

  private static final Logger LOG = Workflow.getLogger(Rejection.class);
  private static final int LOGGED_CHARS = 300;

  /**
   * Builds the exception a validator throws, and logs the refusal as one line. Must be called from
   * workflow code.
   *
   * <p>It is a plain exception, not an {@code ApplicationFailure}: the SDK rejects the update with
   * it either way, but logs a validator's {@code TemporalFailure} as a workflow execution failure
   * with its stack trace, although nothing failed. Callers read it with {@link #from(Throwable)}.
   */
  public static Refused failure(String type, String message, String... details) {
    StringBuilder text = new StringBuilder(type).append(": ").append(message);
    if (details.length > 0) {
      text.append(" [").append(String.join(" ", details)).append(']');
    }
    Refused refused = new Refused(text.toString());
    LOG.info(
        "{} refused {}: {}",
        Workflow.getInfo().getWorkflowId(),
        Workflow.getCurrentUpdateInfo().map(UpdateInfo::getUpdateName).orElse("a request"),
        shortened(refused.getMessage()));
    return refused;
  }

  /**
   * The failure an update handler (past its validator) answers with: an {@code ApplicationFailure},
   * since any other exception from a handler fails the workflow task instead of the update. Same
   * message format, read by {@link #from(Throwable)}.
   */
  public static ApplicationFailure handlerFailure(String type, String message, String... details) {
    return ApplicationFailure.newNonRetryableFailure(
        failure(type, message, details).getMessage(), type);
  }

  /** What a session's validator throws for a refused update: no stack trace, nothing failed. */
  public static final class Refused extends RuntimeException {
    Refused(String message) {
      super(message, null, false, false);
    }
  }

  private static String shortened(String text) {
    return text.length() <= LOGGED_CHARS ? text : text.substring(0, LOGGED_CHARS) + "...";
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
    if (!TYPES.contains(type)) {
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
