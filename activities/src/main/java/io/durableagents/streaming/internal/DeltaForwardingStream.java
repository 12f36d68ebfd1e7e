package io.durableagents.streaming.internal;

import io.durableagents.model.ModelException;
import io.durableagents.model.ModelStream;
import io.durableagents.streaming.Delta;
import io.durableagents.streaming.DeltaListener;
import io.durableagents.workflow.FailureTypes;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.client.ActivityCompletionException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link ModelStream} a model activity hands its provider: every call heartbeats, and every
 * non-empty delta then goes to the worker's {@link DeltaListener}s, in order, on the calling
 * (activity) thread.
 *
 * <p>Once a heartbeat reports that the activity is cancelled, timed out or its worker is shutting
 * down ({@link ActivityCompletionException}), or the thread is interrupted, the stream stops for
 * good: that call and every later one throw the same exception without forwarding anything, so the
 * provider's read loop ends and its HTTP call is abandoned. Not thread-safe: one stream serves one
 * model call on one thread.
 */
public final class DeltaForwardingStream implements ModelStream {
  private static final Logger log = LoggerFactory.getLogger(DeltaForwardingStream.class);

  private final String sessionId;
  private final int step;
  private final int attempt;
  private final List<DeltaListener> listeners;
  private final Runnable heartbeat;
  private final LongSupplier nanoClock;
  private final long heartbeatsFrom;
  private RuntimeException stopped;
  private boolean listenerFailed;

  /**
   * How long a model activity runs before its stream starts to heartbeat. The SDK sends an
   * activity's first heartbeat to the server at once, on the calling thread: a turn that is over
   * sooner needs neither the liveness signal nor a cancel it could learn of, and is spared that
   * round trip.
   */
  public static final Duration QUIET_START = Duration.ofMillis(500);

  /**
   * @param heartbeat called before every delta is forwarded; throws when the call must stop
   */
  public DeltaForwardingStream(
      String sessionId, int step, int attempt, List<DeltaListener> listeners, Runnable heartbeat) {
    this(sessionId, step, attempt, listeners, heartbeat, Duration.ZERO, System::nanoTime);
  }

  /**
   * @param quietStart how long after creation the stream starts to call {@code heartbeat}
   * @param nanoClock the clock that measures it
   */
  public DeltaForwardingStream(
      String sessionId,
      int step,
      int attempt,
      List<DeltaListener> listeners,
      Runnable heartbeat,
      Duration quietStart,
      LongSupplier nanoClock) {
    this.sessionId = Objects.requireNonNull(sessionId, "sessionId");
    this.step = step;
    this.attempt = attempt;
    this.listeners = List.copyOf(listeners);
    this.heartbeat = Objects.requireNonNull(heartbeat, "heartbeat");
    this.nanoClock = nanoClock;
    this.heartbeatsFrom = nanoClock.getAsLong() + quietStart.toNanos();
  }

  /**
   * The stream of one model activity execution: heartbeats through {@code context}, after a {@link
   * #QUIET_START}.
   */
  public static DeltaForwardingStream forActivity(
      ActivityExecutionContext context, String sessionId, int step, List<DeltaListener> listeners) {
    return new DeltaForwardingStream(
        sessionId,
        step,
        context.getInfo().getAttempt(),
        listeners,
        () -> context.heartbeat(null),
        QUIET_START,
        System::nanoTime);
  }

  @Override
  public void text(String delta) {
    deliver(Delta.TEXT, delta);
  }

  @Override
  public void reasoning(String delta) {
    deliver(Delta.REASONING, delta);
  }

  @Override
  public void alive() {
    check();
  }

  /** Whether the stream stopped because the activity was cancelled or interrupted. */
  public boolean isStopped() {
    return stopped != null;
  }

  private void deliver(String kind, String text) {
    check();
    if (text == null || text.isEmpty() || listeners.isEmpty()) {
      return;
    }
    Delta delta = new Delta(sessionId, step, attempt, kind, text);
    for (DeltaListener listener : listeners) {
      try {
        listener.onDelta(delta);
      } catch (RuntimeException e) {
        if (!listenerFailed) {
          listenerFailed = true; // once per turn: a broken listener must not flood the log
          log.warn(
              "Delta listener {} failed on session {} step {}; the model turn goes on",
              listener.getClass().getName(),
              sessionId,
              step,
              e);
        } else {
          log.debug(
              "Delta listener {} failed again on session {} step {}",
              listener.getClass().getName(),
              sessionId,
              step,
              e);
        }
      }
    }
  }

  private void check() {
    if (stopped != null) {
      throw stopped;
    }
    try {
      if (nanoClock.getAsLong() - heartbeatsFrom >= 0) {
        heartbeat.run();
      }
    } catch (ActivityCompletionException e) {
      stopped = e;
      throw e;
    }
    if (Thread.currentThread().isInterrupted()) {
      stopped =
          ModelException.transientFailure(
              FailureTypes.MODEL_INTERRUPTED,
              "the model call was interrupted (worker shutting down?)",
              null);
      throw stopped;
    }
  }
}
