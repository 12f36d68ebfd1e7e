package io.durableagents.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.durableagents.model.ModelException;
import io.durableagents.streaming.internal.DeltaForwardingStream;
import io.temporal.client.ActivityCanceledException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DeltaForwardingStreamTest {
  private final List<String> events = new ArrayList<>();

  private DeltaForwardingStream stream(Runnable heartbeat, DeltaListener... listeners) {
    return new DeltaForwardingStream("chat-1", 3, 2, List.of(listeners), heartbeat);
  }

  @Test
  void aQuietStart_skipsHeartbeatsUntilItIsOver_butDeltasFlowFromTheStart() {
    long[] now = {1_000};
    List<Delta> received = new ArrayList<>();
    DeltaForwardingStream stream =
        new DeltaForwardingStream(
            "chat-1",
            3,
            1,
            List.of(received::add),
            () -> events.add("heartbeat"),
            java.time.Duration.ofMillis(500),
            () -> now[0]);

    stream.text("a");
    now[0] += 499_999_999;
    stream.alive();
    assertThat(events).isEmpty();
    now[0] += 1;
    stream.text("b");
    assertThat(events).containsExactly("heartbeat");
    assertThat(received).extracting(Delta::text).containsExactly("a", "b");
  }

  @Test
  void eachDelta_heartbeatsFirst_thenReachesEveryListenerInOrder() {
    List<Delta> second = new ArrayList<>();
    DeltaForwardingStream stream =
        stream(
            () -> events.add("heartbeat"), d -> events.add(d.kind() + ":" + d.text()), second::add);

    stream.reasoning("hmm");
    stream.text("Hel");
    stream.text("lo");
    stream.alive();

    assertThat(events)
        .containsExactly(
            "heartbeat",
            "reasoning:hmm",
            "heartbeat",
            "text:Hel",
            "heartbeat",
            "text:lo",
            "heartbeat");
    assertThat(second)
        .containsExactly(
            new Delta("chat-1", 3, 2, Delta.REASONING, "hmm"),
            new Delta("chat-1", 3, 2, Delta.TEXT, "Hel"),
            new Delta("chat-1", 3, 2, Delta.TEXT, "lo"));
  }

  @Test
  void emptyDeltas_heartbeatButAreNotForwarded() {
    DeltaForwardingStream stream = stream(() -> events.add("heartbeat"), d -> events.add(d.text()));

    stream.text("");
    stream.text(null);

    assertThat(events).containsExactly("heartbeat", "heartbeat");
  }

  @Test
  void aFailingListener_isIgnored_andTheOthersStillGetTheDelta() {
    DeltaForwardingStream stream =
        stream(
            () -> {},
            d -> {
              throw new IllegalStateException("listener bug");
            },
            d -> events.add(d.text()));

    stream.text("a");
    stream.text("b");

    assertThat(events).containsExactly("a", "b");
  }

  @Test
  void afterACancelledHeartbeat_nothingMoreIsForwarded_andEveryCallThrows() {
    AtomicInteger beats = new AtomicInteger();
    ActivityCanceledException cancel = new ActivityCanceledException();
    DeltaForwardingStream stream =
        stream(
            () -> {
              if (beats.incrementAndGet() >= 3) {
                throw cancel;
              }
            },
            d -> events.add(d.text()));

    stream.text("one");
    stream.text("two");
    assertThatThrownBy(() -> stream.text("three")).isSameAs(cancel);
    // A provider that swallowed the exception and goes on still gets nowhere.
    assertThatThrownBy(() -> stream.text("four")).isSameAs(cancel);
    assertThatThrownBy(stream::alive).isSameAs(cancel);
    assertThatThrownBy(() -> stream.reasoning("five")).isSameAs(cancel);

    assertThat(events).containsExactly("one", "two");
    assertThat(beats).hasValue(3);
    assertThat(stream.isStopped()).isTrue();
  }

  @Test
  void anInterruptedThread_stopsTheStream() {
    DeltaForwardingStream stream = stream(() -> {}, d -> events.add(d.text()));
    stream.text("before");
    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> stream.text("after"))
          .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.retryable()).isTrue());
      assertThatThrownBy(() -> stream.text("later")).isInstanceOf(ModelException.class);
    } finally {
      Thread.interrupted();
    }
    assertThat(events).containsExactly("before");
  }

  @Test
  void delta_refusesUnknownKinds() {
    assertThatThrownBy(() -> new Delta("s", 1, 1, "audio", "x"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new Delta("s", 1, 1, Delta.TEXT, "x").isText()).isTrue();
    assertThat(new Delta("s", 1, 1, Delta.REASONING, "x").isText()).isFalse();
  }
}
