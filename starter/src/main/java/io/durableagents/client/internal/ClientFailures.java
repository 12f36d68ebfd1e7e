package io.durableagents.client.internal;

import io.durableagents.client.AgentClientException;
import io.durableagents.client.ApprovalNotFoundException;
import io.durableagents.client.InvalidInputException;
import io.durableagents.client.SessionAwaitingApprovalException;
import io.durableagents.client.SessionNotFoundException;
import io.durableagents.client.SessionRecoveringException;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.internal.wire.Rejection;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.client.WorkflowException;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowServiceException;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.failure.ApplicationFailure;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Maps what Temporal and the session answer to the client's exceptions. */
public final class ClientFailures {
  private ClientFailures() {}

  /**
   * The client's exception for a failure of a request to {@code sessionId}: the session's refusal,
   * a session that does not exist (when {@code sessionMustExist}: the request does not create it),
   * or Temporal's refusal, described as {@code refused}. Others are returned as they are.
   */
  static RuntimeException failure(
      String sessionId, RuntimeException e, String refused, boolean sessionMustExist) {
    if (e instanceof WorkflowUpdateException update) {
      return refusal(sessionId, update);
    }
    boolean fromTemporal =
        e instanceof WorkflowNotFoundException
            || e instanceof WorkflowServiceException
            || e instanceof StatusRuntimeException;
    if (!fromTemporal) {
      return e;
    }
    if (sessionMustExist && isNotFound(e)) {
      return new SessionNotFoundException(sessionId);
    }
    return new AgentClientException(refused + ": " + rootMessage(e), e);
  }

  /** Maps a refusal by the session workflow to the client's exceptions. */
  private static AgentClientException refusal(String sessionId, WorkflowUpdateException e) {
    Rejection rejection = Rejection.from(e);
    if (rejection == null) {
      return new AgentClientException("Session '" + sessionId + "' refused: " + rootMessage(e), e);
    }
    return switch (rejection.type()) {
      case FailureTypes.SESSION_AWAITING_APPROVAL ->
          new SessionAwaitingApprovalException(
              sessionId,
              rejection.details().size() > 1 ? rejection.details().get(1) : null,
              rejection.message());
      case FailureTypes.UNKNOWN_APPROVAL ->
          new ApprovalNotFoundException(rejection.message(), false);
      case FailureTypes.APPROVAL_ALREADY_DECIDED ->
          new ApprovalNotFoundException(rejection.message(), true);
      case FailureTypes.SESSION_CLOSING -> new SessionClosingException(rejection.message(), e);
      case FailureTypes.NO_RUN, FailureTypes.SESSION_NOT_FOUND ->
          new SessionNotFoundException(sessionId);
      case FailureTypes.CLOSE_NEEDS_FORCE ->
          new SessionAwaitingApprovalException(
              sessionId,
              rejection.details().size() > 1 ? rejection.details().get(1) : null,
              rejection.message());
      case FailureTypes.INVALID_INPUT, FailureTypes.INVALID_DECISION ->
          new InvalidInputException(rejection.message(), e);
      default -> new AgentClientException(rejection.message(), e);
    };
  }

  /**
   * The exception of a request to {@code sessionId} refused while it recovers, past the retries.
   */
  static RuntimeException recovering(String sessionId, RuntimeException refusal) {
    return new SessionRecoveringException(sessionId, refusal);
  }

  /** The workflow does not exist: the SDK's exception, or the server's status. */
  static boolean isNotFound(Throwable e) {
    return causedBy(e, WorkflowNotFoundException.class, Status.Code.NOT_FOUND);
  }

  /**
   * Temporal refused to start a workflow because one with the id is running: a plain start says so
   * with {@link WorkflowExecutionAlreadyStarted}, update-with-start as a status.
   */
  static boolean isAlreadyRunning(Throwable e) {
    return causedBy(e, WorkflowExecutionAlreadyStarted.class, Status.Code.ALREADY_EXISTS);
  }

  private static boolean causedBy(Throwable e, Class<? extends Throwable> type, Status.Code code) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)
          || (t instanceof StatusRuntimeException status && status.getStatus().getCode() == code)) {
        return true;
      }
    }
    return false;
  }

  /** The message of the innermost cause, as a person reading an error wants it. */
  static String rootMessage(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    if (cause instanceof ApplicationFailure application) {
      return application.getOriginalMessage();
    }
    if (cause instanceof WorkflowException) {
      return cause.getMessage();
    }
    return cause.getMessage() == null ? cause.toString() : cause.getMessage();
  }

  /** The cause inside the wrappers of a future's failure. */
  static Throwable unwrap(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }
}
