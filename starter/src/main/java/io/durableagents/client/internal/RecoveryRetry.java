package io.durableagents.client.internal;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Retries a request to a session that Temporal refuses because the session's workflow task is in a
 * failed state, until the task recovers or a timeout has passed; every other outcome is the
 * caller's at once.
 *
 * <p>A server refuses every update and query to a workflow whose workflow task failed or timed out
 * twice in a row, from the task's third attempt on ({@code FAILED_PRECONDITION}, "Unable to perform
 * workflow execution update due to Workflow Task in failed state." and "Unable to query workflow
 * due to Workflow Task in failed state."), before it admits the update; an update it admitted while
 * the task was still on an earlier attempt fails so too once the task times out again. Workers
 * killed during tasks leave a session so until a task times out (10 s) and a worker completes the
 * next one. Signals are not refused. Callers send an update with the same update id on every
 * attempt, so that the server answers a retry of one that was applied after all with its outcome.
 * Only that refusal is retried: other {@code FAILED_PRECONDITION}s (e.g. an update aborted by a
 * task failure after the workflow saw it) say something a retry cannot fix.
 *
 * <p>Waits start at {@link #FIRST_WAIT}, double up to {@link #MAX_WAIT}, and are each drawn between
 * half and all of that, so clients refused together do not come back together. No retry starts once
 * the timeout has passed since the first attempt; an attempt Temporal accepts is waited for as long
 * as it takes.
 */
public final class RecoveryRetry {
  static final Duration FIRST_WAIT = Duration.ofMillis(200);
  static final Duration MAX_WAIT = Duration.ofSeconds(5);

  /** Blocks the calling thread; a seam for tests. */
  interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
  }

  private final Duration timeout;
  private final LongSupplier nanoTime;
  private final Sleeper sleeper;
  private final Function<Duration, Executor> after;
  private final DoubleSupplier random;

  RecoveryRetry(
      Duration timeout,
      LongSupplier nanoTime,
      Sleeper sleeper,
      Function<Duration, Executor> after,
      DoubleSupplier random) {
    this.timeout = timeout;
    this.nanoTime = nanoTime;
    this.sleeper = sleeper;
    this.after = after;
    this.random = random;
  }

  /** Retries for {@code timeout}; async attempts after the first start on {@code executor}. */
  public static RecoveryRetry newInstance(Duration timeout, Executor executor) {
    return new RecoveryRetry(
        timeout,
        System::nanoTime,
        duration -> TimeUnit.NANOSECONDS.sleep(duration.toNanos()),
        duration ->
            CompletableFuture.delayedExecutor(duration.toNanos(), TimeUnit.NANOSECONDS, executor),
        () -> ThreadLocalRandom.current().nextDouble());
  }

  /**
   * True when the cause chain holds Temporal's refusal of a request to a workflow whose workflow
   * task is in a failed state.
   */
  public static boolean isFailedTaskRefusal(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof StatusRuntimeException refusal) {
        Status status = refusal.getStatus();
        return status.getCode() == Status.Code.FAILED_PRECONDITION
            && status.getDescription() != null
            && status
                .getDescription()
                .toLowerCase(Locale.ROOT)
                .contains("workflow task in failed state");
      }
    }
    return false;
  }

  /**
   * The result of {@code attempt}, called again while it fails with the refusal. Other failures are
   * thrown as they are; the refusal once the timeout has passed (or the thread is interrupted)
   * becomes {@code recovering} of it.
   */
  public <T> T call(Supplier<T> attempt, Function<RuntimeException, RuntimeException> recovering) {
    long start = nanoTime.getAsLong();
    for (int retry = 1; ; retry++) {
      try {
        return attempt.get();
      } catch (RuntimeException e) {
        Duration wait = waitAfter(e, retry, start, recovering);
        try {
          sleeper.sleep(wait);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw recovering.apply(e);
        }
      }
    }
  }

  /** {@link #call} of an attempt that answers a future; waits hold no thread. */
  public <T> CompletableFuture<T> callAsync(
      Supplier<CompletableFuture<T>> attempt,
      Function<RuntimeException, RuntimeException> recovering) {
    CompletableFuture<T> result = new CompletableFuture<>();
    attemptAsync(attempt, recovering, 1, nanoTime.getAsLong(), result);
    return result;
  }

  // The callback completes result on every path; the stage whenComplete returns has nothing more.
  @SuppressWarnings("FutureReturnValueIgnored")
  private <T> void attemptAsync(
      Supplier<CompletableFuture<T>> attempt,
      Function<RuntimeException, RuntimeException> recovering,
      int retry,
      long start,
      CompletableFuture<T> result) {
    CompletableFuture<T> answer;
    try {
      answer = attempt.get();
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    answer.whenComplete(
        (value, failure) -> {
          if (failure == null) {
            result.complete(value);
            return;
          }
          Throwable cause = unwrap(failure);
          if (!(cause instanceof RuntimeException e)) {
            result.completeExceptionally(cause);
            return;
          }
          Duration wait;
          try {
            wait = waitAfter(e, retry, start, recovering);
          } catch (RuntimeException end) {
            result.completeExceptionally(end);
            return;
          }
          after
              .apply(wait)
              .execute(() -> attemptAsync(attempt, recovering, retry + 1, start, result));
        });
  }

  /**
   * The wait before attempt {@code retry + 1}, cut to what is left of the timeout; throws {@code
   * failure} when it is not the refusal, and {@code recovering} of it when no time is left.
   */
  private Duration waitAfter(
      RuntimeException failure,
      int retry,
      long start,
      Function<RuntimeException, RuntimeException> recovering) {
    if (!isFailedTaskRefusal(failure)) {
      throw failure;
    }
    long left = timeout.toNanos() - (nanoTime.getAsLong() - start);
    if (left <= 0) {
      throw recovering.apply(failure);
    }
    Duration wait = delay(retry);
    return wait.toNanos() < left ? wait : Duration.ofNanos(left);
  }

  /**
   * The wait after the {@code retry}-th refusal: between half and all of 200 ms doubled, to 5 s.
   */
  Duration delay(int retry) {
    long ceiling = FIRST_WAIT.toMillis() << Math.min(retry - 1, 16);
    long full = Math.min(ceiling, MAX_WAIT.toMillis());
    return Duration.ofMillis(full / 2 + Math.round(random.getAsDouble() * (full - full / 2)));
  }

  private static Throwable unwrap(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }
}
