package io.durableagents.activities.internal;

import io.durableagents.store.StoreException;
import io.durableagents.store.StoreUnavailableException;
import io.durableagents.workflow.FailureTypes;
import io.temporal.failure.ApplicationFailure;

/**
 * How a store failure fails an activity, the same in all of them: {@code store_unavailable} when
 * the database failed or could not be reached ({@link StoreUnavailableException}), which is waited
 * out and never fails a run; {@code store_inconsistent} when the store lacks rows it should hold,
 * which no retry fixes (repair: {@code agents projection rebuild SESSION}).
 */
final class StoreFailures {
  private StoreFailures() {}

  /**
   * For an activity whose retry policy has no limit ({@code ResolveRun}, {@code PrepareFork}): the
   * policy retries an outage until the database is back; missing rows are not retried.
   */
  static ApplicationFailure retried(StoreException e, String sessionId) {
    if (e instanceof StoreUnavailableException) {
      return ApplicationFailure.newFailureWithCause(
          e.getMessage(), FailureTypes.STORE_UNAVAILABLE, e);
    }
    return inconsistent(e, sessionId);
  }

  /**
   * For an activity with a bounded retry policy (a model turn, a tool call): never retried by it,
   * so an outage spends none of its attempts; the workflow waits it out with durable timers and
   * calls again.
   */
  static ApplicationFailure waitedOut(StoreException e, String sessionId) {
    if (e instanceof StoreUnavailableException) {
      return ApplicationFailure.newNonRetryableFailureWithCause(
          e.getMessage(), FailureTypes.STORE_UNAVAILABLE, e);
    }
    return inconsistent(e, sessionId);
  }

  private static ApplicationFailure inconsistent(StoreException e, String sessionId) {
    return ApplicationFailure.newNonRetryableFailureWithCause(
        e.getMessage() + " (repair it with: agents projection rebuild " + sessionId + ")",
        FailureTypes.STORE_INCONSISTENT,
        e);
  }
}
