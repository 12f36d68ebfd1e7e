package io.durableagents.workflow.internal;

import io.durableagents.workflow.FailureTypes;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;

/** How the workflow waits out a store outage that an activity reported: durable timers. */
final class StoreWaits {
  private static final Duration FIRST = Duration.ofSeconds(1);
  private static final Duration LONGEST = Duration.ofMinutes(1);

  private StoreWaits() {}

  /** The wait after {@code previous} (zero: the first): 1 s, doubling up to a minute. */
  static Duration next(Duration previous) {
    if (previous.isZero()) {
      return FIRST;
    }
    Duration doubled = previous.multipliedBy(2);
    return doubled.compareTo(LONGEST) > 0 ? LONGEST : doubled;
  }

  /** Whether an activity failed because the store could not be reached. */
  static boolean isStoreUnavailable(Throwable failure) {
    return failure instanceof ActivityFailure
        && failure.getCause() instanceof ApplicationFailure cause
        && FailureTypes.STORE_UNAVAILABLE.equals(cause.getType());
  }
}
