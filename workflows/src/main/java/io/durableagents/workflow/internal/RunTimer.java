package io.durableagents.workflow.internal;

import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * A run's wall-clock budget, a durable timer. Disarmed while the run waits for a decision and armed
 * again after, so the wait does not count; each workflow run arms the full timeout.
 */
final class RunTimer {
  private final long timeoutMs;
  private final Runnable onTimeout;
  private CancellationScope scope;
  private boolean timedOut;

  /** {@code timeoutMs} of 0 or less: no budget. */
  RunTimer(long timeoutMs, Runnable onTimeout) {
    this.timeoutMs = timeoutMs;
    this.onTimeout = onTimeout;
  }

  long timeoutMs() {
    return timeoutMs;
  }

  boolean timedOut() {
    return timedOut;
  }

  void arm() {
    if (timeoutMs <= 0 || scope != null) {
      return;
    }
    scope =
        Workflow.newCancellationScope(
            () ->
                Workflow.newTimer(Duration.ofMillis(timeoutMs))
                    .thenApply(
                        fired -> {
                          timedOut = true;
                          onTimeout.run();
                          return null;
                        }));
    scope.run();
  }

  void disarm() {
    if (scope != null) {
      scope.cancel();
      scope = null;
    }
  }

  /** The run was cancelled: its scope cancelled the timer too. */
  void forget() {
    scope = null;
  }
}
