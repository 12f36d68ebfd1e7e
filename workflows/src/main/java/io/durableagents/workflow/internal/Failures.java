package io.durableagents.workflow.internal;

import io.durableagents.workflow.ErrorInfo;
import io.durableagents.workflow.internal.activity.ModelFailureDetails;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.failure.TemporalFailure;
import io.temporal.failure.TimeoutFailure;

/** How an activity's failure becomes the {@link ErrorInfo} of a run. */
final class Failures {
  private Failures() {}

  /**
   * The message of a failed activity or child workflow: its cause's own message, without the SDK's
   * wrapping.
   */
  static String messageOf(Throwable failure) {
    Throwable cause = failure;
    if ((failure instanceof ActivityFailure || failure instanceof ChildWorkflowFailure)
        && failure.getCause() != null) {
      cause = failure.getCause();
    }
    return cause instanceof TemporalFailure temporal
        ? temporal.getOriginalMessage()
        : String.valueOf(cause.getMessage());
  }

  /** The failure's type and message; {@code fallbackCode} where it has no type. */
  static ErrorInfo errorOf(ActivityFailure failure, String fallbackCode) {
    Throwable cause = failure.getCause();
    if (cause instanceof ApplicationFailure application) {
      String type = application.getType();
      String code = type == null || type.isBlank() ? fallbackCode : type;
      return new ErrorInfo(code, application.getOriginalMessage());
    }
    if (cause instanceof TimeoutFailure timeout) {
      return new ErrorInfo(fallbackCode, "timed out: " + timeout.getTimeoutType());
    }
    if (cause instanceof TemporalFailure temporal) {
      return new ErrorInfo(fallbackCode, temporal.getOriginalMessage());
    }
    return new ErrorInfo(fallbackCode, String.valueOf(failure.getMessage()));
  }

  /**
   * What a failed model turn reported with its failure (partial text, times); null when the failure
   * carries none (a timeout, or a worker of an older version).
   */
  static ModelFailureDetails modelDetailsOf(ActivityFailure failure) {
    if (failure.getCause() instanceof ApplicationFailure application
        && application.getDetails().getSize() > 0) {
      try {
        return application.getDetails().get(ModelFailureDetails.class);
      } catch (RuntimeException unreadable) {
        return null;
      }
    }
    return null;
  }
}
