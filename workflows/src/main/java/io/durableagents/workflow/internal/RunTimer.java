package io.durableagents.workflow.internal;

import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * A run's wall-clock budget, a durable timer. Disarmed while the run waits for a decision and armed
 * again for what is left, so the wait does not count; a run carried over continue-as-new starts
 * with the time it had spent ({@link #spentMs()}).
 */
final class RunTimer {
  private final long timeoutMs;
  private final Runnable onTimeout;
  private CancellationScope scope;
  private boolean timedOut;

  /** Time spent in the segments before the one armed now. */
  private long spentBeforeMs;

  private long armedAtMs;

  /** {@code timeoutMs} of 0 or less: no budget; {@code spentMs} of it already used. */
  RunTimer(long timeoutMs, long spentMs, Runnable onTimeout) {
    this.timeoutMs = timeoutMs;
    this.spentBeforeMs = Math.max(0, spentMs);
    this.onTimeout = onTimeout;
  }

  /** Wall-clock time the run has spent of its budget, waits for decisions aside. */
  long spentMs() {
    return spentBeforeMs + (scope == null ? 0 : Workflow.currentTimeMillis() - armedAtMs);
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
    armedAtMs = Workflow.currentTimeMillis();
    long leftMs = Math.max(1, timeoutMs - spentBeforeMs);
    scope =
        Workflow.newCancellationScope(
            () ->
                Workflow.newTimer(Duration.ofMillis(leftMs))
                    .thenApply(
                        fired -> {
                          timedOut = true;
                          onTimeout.run();
                          return null;
                        })
                    // Disarmed: cancelled, not failed.
                    .exceptionally(cancelled -> null));
    scope.run();
  }

  void disarm() {
    if (scope != null) {
      spentBeforeMs += Workflow.currentTimeMillis() - armedAtMs;
      scope.cancel();
      scope = null;
    }
  }

  /** The run was cancelled: its scope cancelled the timer too. */
  void forget() {
    if (scope != null) {
      spentBeforeMs += Workflow.currentTimeMillis() - armedAtMs;
    }
    scope = null;
  }
}
