package io.durableagents.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.durableagents.workflow.FailureTypes;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ModelEventQueueTest {

  @Test
  void eventsFromAnotherThreadArriveInOrder_thenTheEnd() {
    ModelEventQueue<String> events = new ModelEventQueue<>(Duration.ofSeconds(5));
    CompletableFuture<Void> producer =
        CompletableFuture.runAsync(
            () -> {
              events.put("a");
              events.put("b");
              events.complete();
            });
    assertThat(events.take(ModelStream.discarding())).isEqualTo("a");
    assertThat(events.take(ModelStream.discarding())).isEqualTo("b");
    assertThat(events.take(ModelStream.discarding())).isNull();
    assertThat(events.take(ModelStream.discarding())).as("ended stays ended").isNull();
    producer.join();
  }

  @Test
  void aSilentModelKeepsTheTurnAlive_andACancelReportedByAliveStopsTheWait() {
    ModelEventQueue<String> events = new ModelEventQueue<>(Duration.ofSeconds(30));
    AtomicInteger alive = new AtomicInteger();
    RuntimeException cancelled = new IllegalStateException("cancelled");
    ModelStream stream =
        new Recording() {
          @Override
          public void alive() {
            if (alive.incrementAndGet() == 2) {
              throw cancelled;
            }
          }
        };
    long start = System.nanoTime();
    assertThatThrownBy(() -> events.take(stream)).isSameAs(cancelled);
    assertThat(alive).hasValue(2);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
        .as("alive() every %s, not only at the idle timeout", ModelEventQueue.ALIVE_INTERVAL)
        .isBetween(1_500L, 10_000L);
  }

  @Test
  void silencePastTheIdleTimeoutIsATransientModelTimeout() {
    ModelEventQueue<String> events = new ModelEventQueue<>(Duration.ofMillis(300));
    assertThatThrownBy(() -> events.take(ModelStream.discarding()))
        .isInstanceOfSatisfying(
            ModelException.class,
            e -> {
              assertThat(e.code()).isEqualTo(FailureTypes.MODEL_TIMEOUT);
              assertThat(e.retryable()).isTrue();
            });
  }

  @Test
  void theSdksFailureIsThrownOnTheTakingThread() {
    ModelEventQueue<String> events = new ModelEventQueue<>(Duration.ofSeconds(5));
    IllegalArgumentException sdkFailure = new IllegalArgumentException("bad request");
    events.put("a");
    events.fail(sdkFailure);
    assertThat(events.take(ModelStream.discarding())).isEqualTo("a");
    assertThatThrownBy(() -> events.take(ModelStream.discarding())).isSameAs(sdkFailure);

    ModelEventQueue<String> checked = new ModelEventQueue<>(Duration.ofSeconds(5));
    IOException io = new IOException("reset");
    checked.fail(io);
    assertThatThrownBy(() -> checked.take(ModelStream.discarding()))
        .isInstanceOf(CompletionException.class)
        .hasCause(io);
  }

  @Test
  void anInterruptedWaitIsATransientModelInterrupted() {
    ModelEventQueue<String> events = new ModelEventQueue<>(Duration.ofSeconds(5));
    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> events.take(ModelStream.discarding()))
          .isInstanceOfSatisfying(
              ModelException.class,
              e -> assertThat(e.code()).isEqualTo(FailureTypes.MODEL_INTERRUPTED));
      assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept").isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  private abstract static class Recording implements ModelStream {
    @Override
    public void text(String delta) {}

    @Override
    public void reasoning(String delta) {}
  }
}
