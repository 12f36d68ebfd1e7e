package io.durableagents.model;

import io.durableagents.workflow.FailureTypes;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Carries a model SDK's streamed events, which the SDK delivers on threads of its own, to the model
 * activity's thread, where the provider hands them to its {@link ModelStream}.
 *
 * <p>A {@link ModelStream} belongs to the activity's thread: it heartbeats, and it is how a cancel
 * reaches the provider. An SDK that streams through callbacks (or a reactive stream) calls {@link
 * #put}, {@link #complete} and {@link #fail} from its own threads; the provider loops on {@link
 * #take}, which calls {@link ModelStream#alive()} every {@link #ALIVE_INTERVAL} while the model is
 * silent. When {@code alive()} throws (the turn was cancelled or timed out), {@code take} throws it
 * on, and the provider cancels the SDK's request in its {@code finally}:
 *
 * <pre>{@code
 * ModelEventQueue<Event> events = new ModelEventQueue<>(idleTimeout);
 * Subscription request = sdk.stream(params, events::put, events::complete, events::fail);
 * try {
 *   for (Event event = events.take(stream); event != null; event = events.take(stream)) {
 *     ... // stream.text(...), collect tool calls and usage
 *   }
 * } finally {
 *   request.cancel();
 * }
 * }</pre>
 *
 * <p>One queue serves one model call.
 *
 * @param <E> the SDK's event type
 */
public final class ModelEventQueue<E> {
  /** How often {@link #take} calls {@link ModelStream#alive()} while it waits. */
  public static final Duration ALIVE_INTERVAL = Duration.ofSeconds(1);

  private static final Object END = new Object();

  private final LinkedBlockingQueue<Object> items = new LinkedBlockingQueue<>();
  private final long idleNanos;
  private boolean ended;

  /**
   * @param idleTimeout how long the model may send nothing before {@link #take} fails as a
   *     transient {@code model_timeout}
   */
  public ModelEventQueue(Duration idleTimeout) {
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    if (idleTimeout.isZero() || idleTimeout.isNegative()) {
      throw new IllegalArgumentException("idleTimeout must be positive, got " + idleTimeout);
    }
    this.idleNanos = idleTimeout.toNanos();
  }

  /** The SDK's next event; any thread. */
  public void put(E event) {
    items.add(Objects.requireNonNull(event, "event"));
  }

  /** The SDK's stream ended normally; any thread. */
  public void complete() {
    items.add(END);
  }

  /** The SDK's stream failed; any thread. {@link #take} throws it on the activity's thread. */
  public void fail(Throwable error) {
    items.add(new Failure(Objects.requireNonNull(error, "error")));
  }

  /**
   * The next event, or null once the stream has ended. Calls {@code stream.alive()} at least every
   * {@link #ALIVE_INTERVAL} while it waits, and throws what that call throws.
   *
   * @throws ModelException transient {@code model_timeout} after the idle timeout without an event,
   *     transient {@code model_interrupted} when the thread is interrupted
   * @throws RuntimeException the failure given to {@link #fail} (a checked one wrapped in a {@link
   *     CompletionException})
   */
  @SuppressWarnings("unchecked")
  public E take(ModelStream stream) {
    if (ended) {
      return null;
    }
    long deadline = System.nanoTime() + idleNanos;
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw ModelException.transientFailure(
            FailureTypes.MODEL_TIMEOUT,
            "The model sent nothing for " + Duration.ofNanos(idleNanos).toSeconds() + " s.",
            null);
      }
      Object item;
      try {
        item = items.poll(Math.min(left, ALIVE_INTERVAL.toNanos()), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw ModelException.transientFailure(
            FailureTypes.MODEL_INTERRUPTED,
            "the model call was interrupted (worker shutting down?)",
            null);
      }
      if (item == null) {
        stream.alive();
      } else if (item == END) {
        ended = true;
        return null;
      } else if (item instanceof Failure failure) {
        ended = true;
        throw failure.unchecked();
      } else {
        return (E) item;
      }
    }
  }

  private record Failure(Throwable error) {
    RuntimeException unchecked() {
      if (error instanceof RuntimeException runtime) {
        return runtime;
      }
      if (error instanceof Error fatal) {
        throw fatal;
      }
      return new CompletionException(error);
    }
  }
}
