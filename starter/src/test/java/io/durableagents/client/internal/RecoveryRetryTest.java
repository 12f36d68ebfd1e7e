package io.durableagents.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.client.WorkflowQueryRejectedException;
import io.temporal.client.WorkflowServiceException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The retry of requests a recovering session refuses, on a fake clock: which failures it retries,
 * how long it waits between attempts, and when it gives up.
 */
class RecoveryRetryTest {
  /** What the real server answers an update while the workflow task is in a failed state. */
  static final String UPDATE_REFUSAL =
      "Unable to perform workflow execution update due to Workflow Task in failed state.";

  /** ... and a query. */
  static final String QUERY_REFUSAL =
      "Unable to query workflow due to Workflow Task in failed state.";

  private static final WorkflowExecution SESSION =
      WorkflowExecution.newBuilder().setWorkflowId("chat-1").build();

  /** The clock the fakes advance: every wait moves it by the time waited. */
  private long now = 1_000_000_000L;

  private final List<Duration> waits = new ArrayList<>();

  private RecoveryRetry retry(Duration timeout, double random) {
    Executor inline = Runnable::run;
    return new RecoveryRetry(
        timeout,
        () -> now,
        this::advance,
        duration -> {
          advance(duration);
          return inline;
        },
        () -> random);
  }

  private void advance(Duration duration) {
    waits.add(duration);
    now += duration.toNanos();
  }

  static StatusRuntimeException failedPrecondition(String description) {
    return new StatusRuntimeException(Status.FAILED_PRECONDITION.withDescription(description));
  }

  /** As the SDK throws the update refusal: a service exception around the gRPC status. */
  static WorkflowServiceException updateRefused() {
    return new WorkflowServiceException(
        SESSION, "AgentSession", failedPrecondition(UPDATE_REFUSAL));
  }

  private static RuntimeException recovering(RuntimeException refusal) {
    return new IllegalStateException("recovering", refusal);
  }

  @Test
  void classification_theFailedTaskRefusalOfAnUpdateOrAQuery_andNothingElse() {
    assertThat(RecoveryRetry.isFailedTaskRefusal(updateRefused())).isTrue();
    assertThat(
            RecoveryRetry.isFailedTaskRefusal(
                new WorkflowQueryRejectedException(
                    SESSION, "AgentSession", failedPrecondition(QUERY_REFUSAL))))
        .isTrue();
    assertThat(RecoveryRetry.isFailedTaskRefusal(failedPrecondition(UPDATE_REFUSAL))).isTrue();
    assertThat(
            RecoveryRetry.isFailedTaskRefusal(
                new RuntimeException("wrapped twice", updateRefused())))
        .isTrue();

    // Other FAILED_PRECONDITIONs: an update the workflow saw, aborted by a task failure; a
    // closing workflow; none described.
    assertThat(
            RecoveryRetry.isFailedTaskRefusal(
                failedPrecondition(
                    "Unable to perform workflow execution update due to unexpected workflow task"
                        + " failure.")))
        .isFalse();
    assertThat(RecoveryRetry.isFailedTaskRefusal(failedPrecondition("Workflow is closing.")))
        .isFalse();
    assertThat(RecoveryRetry.isFailedTaskRefusal(failedPrecondition(null))).isFalse();
    // The same words under another status, and no status at all.
    assertThat(
            RecoveryRetry.isFailedTaskRefusal(
                new StatusRuntimeException(Status.UNAVAILABLE.withDescription(UPDATE_REFUSAL))))
        .isFalse();
    assertThat(RecoveryRetry.isFailedTaskRefusal(new IllegalStateException(UPDATE_REFUSAL)))
        .isFalse();
    assertThat(
            RecoveryRetry.isFailedTaskRefusal(
                new StatusRuntimeException(Status.NOT_FOUND.withDescription("no workflow"))))
        .isFalse();
  }

  @Test
  void backoff_startsAt200ms_doubles_to5s_jitteredBetweenHalfAndAll() {
    RecoveryRetry lowest = retry(Duration.ofMinutes(2), 0.0);
    RecoveryRetry highest = retry(Duration.ofMinutes(2), 1.0);

    long[] full = {200, 400, 800, 1600, 3200, 5000, 5000};
    for (int retry = 1; retry <= full.length; retry++) {
      assertThat(lowest.delay(retry)).isEqualTo(Duration.ofMillis(full[retry - 1] / 2));
      assertThat(highest.delay(retry)).isEqualTo(Duration.ofMillis(full[retry - 1]));
    }
    assertThat(retry(Duration.ofMinutes(2), 0.5).delay(3)).isEqualTo(Duration.ofMillis(600));
    // No overflow however long the recovery takes.
    assertThat(highest.delay(1_000)).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void aRefusedAttempt_isRetried_untilItIsTaken() {
    AtomicInteger attempts = new AtomicInteger();

    String answer =
        retry(Duration.ofMinutes(2), 1.0)
            .call(
                () -> {
                  if (attempts.incrementAndGet() <= 3) {
                    throw updateRefused();
                  }
                  return "taken";
                },
                RecoveryRetryTest::recovering);

    assertThat(answer).isEqualTo("taken");
    assertThat(attempts).hasValue(4);
    assertThat(waits)
        .containsExactly(Duration.ofMillis(200), Duration.ofMillis(400), Duration.ofMillis(800));
  }

  @Test
  void otherFailures_areTheCallersAtOnce() {
    AtomicInteger attempts = new AtomicInteger();
    StatusRuntimeException aborted =
        failedPrecondition(
            "Unable to perform workflow execution update due to unexpected workflow task failure.");

    assertThatThrownBy(
            () ->
                retry(Duration.ofMinutes(2), 1.0)
                    .call(
                        () -> {
                          attempts.incrementAndGet();
                          throw aborted;
                        },
                        RecoveryRetryTest::recovering))
        .isSameAs(aborted);
    assertThat(attempts).hasValue(1);
    assertThat(waits).isEmpty();
  }

  @Test
  void aRefusalPastTheTimeout_becomesTheRecoveringException_withTheRefusalAsItsCause() {
    AtomicInteger attempts = new AtomicInteger();
    WorkflowServiceException refusal = updateRefused();
    long start = now;

    assertThatThrownBy(
            () ->
                retry(Duration.ofSeconds(10), 1.0)
                    .call(
                        () -> {
                          attempts.incrementAndGet();
                          throw refusal;
                        },
                        RecoveryRetryTest::recovering))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("recovering")
        .hasCause(refusal);
    // 200 + 400 + 800 + 1600 + 3200 = 6200 ms, then the 3800 ms left of the 10 s, not 5 s.
    assertThat(waits)
        .containsExactly(
            Duration.ofMillis(200),
            Duration.ofMillis(400),
            Duration.ofMillis(800),
            Duration.ofMillis(1600),
            Duration.ofMillis(3200),
            Duration.ofMillis(3800));
    assertThat(attempts).hasValue(7);
    assertThat(Duration.ofNanos(now - start)).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void aZeroTimeout_retriesNothing() {
    AtomicInteger attempts = new AtomicInteger();

    assertThatThrownBy(
            () ->
                retry(Duration.ZERO, 1.0)
                    .call(
                        () -> {
                          attempts.incrementAndGet();
                          throw updateRefused();
                        },
                        RecoveryRetryTest::recovering))
        .hasMessage("recovering");
    assertThat(attempts).hasValue(1);
    assertThat(waits).isEmpty();
  }

  @Test
  void anInterruptedWait_givesUp_andKeepsTheInterrupt() {
    RecoveryRetry interrupted =
        new RecoveryRetry(
            Duration.ofMinutes(2),
            () -> now,
            duration -> {
              throw new InterruptedException();
            },
            duration -> Runnable::run,
            () -> 1.0);
    try {
      assertThatThrownBy(
              () ->
                  interrupted.call(
                      () -> {
                        throw updateRefused();
                      },
                      RecoveryRetryTest::recovering))
          .hasMessage("recovering");
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void async_retriesARefusedFuture_withTheSameWaits() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    Supplier<CompletableFuture<String>> attempt =
        () ->
            attempts.incrementAndGet() <= 2
                ? CompletableFuture.failedFuture(updateRefused())
                : CompletableFuture.completedFuture("taken");

    CompletableFuture<String> answer =
        retry(Duration.ofMinutes(2), 1.0).callAsync(attempt, RecoveryRetryTest::recovering);

    assertThat(answer.get()).isEqualTo("taken");
    assertThat(attempts).hasValue(3);
    assertThat(waits).containsExactly(Duration.ofMillis(200), Duration.ofMillis(400));
  }

  @Test
  void async_unwrapsCompletionExceptions_passesOtherFailures_andGivesUpPastTheTimeout() {
    IllegalStateException other = new IllegalStateException("not a refusal");
    CompletableFuture<String> failed =
        retry(Duration.ofMinutes(2), 1.0)
            .callAsync(
                () ->
                    CompletableFuture.supplyAsync(
                        () -> {
                          throw other;
                        },
                        Runnable::run),
                RecoveryRetryTest::recovering);
    assertThatThrownBy(failed::get).isInstanceOf(ExecutionException.class).hasCause(other);
    assertThat(waits).isEmpty();

    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<String> recovering =
        retry(Duration.ofSeconds(1), 1.0)
            .callAsync(
                () -> {
                  attempts.incrementAndGet();
                  // A supplier that throws rather than answering a failed future.
                  throw updateRefused();
                },
                RecoveryRetryTest::recovering);
    assertThatThrownBy(recovering::get)
        .isInstanceOf(ExecutionException.class)
        .cause()
        .hasMessage("recovering")
        .hasCauseInstanceOf(WorkflowServiceException.class);
    // 200 + 400, then the 400 ms left of the second.
    assertThat(waits)
        .containsExactly(Duration.ofMillis(200), Duration.ofMillis(400), Duration.ofMillis(400));
    assertThat(attempts).hasValue(4);
  }
}
