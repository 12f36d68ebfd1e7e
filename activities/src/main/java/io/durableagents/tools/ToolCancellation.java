package io.durableagents.tools;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a running tool call that its result is no longer wanted: the run was cancelled or timed
 * out, the call's own timeout passed, or the worker is shutting down. The worker also interrupts
 * the handler's thread, so blocking calls that honour interrupts stop by themselves; long loops
 * check {@link #isCancelled()}, and clients of other systems register {@link #onCancel} to abort
 * their request.
 *
 * <p>A handler that stops (returns by throwing) after a cancellation gets the result {@code
 * {"error": "cancelled"}}; a handler that finishes anyway has its real result recorded, so the
 * transcript says what the tool did. A handler that ignores the cancellation runs to completion.
 *
 * <p>The plugin makes one for every call; build one yourself to test a handler's cancellation:
 * {@code ToolContext.newBuilder().setCancellation(cancellation)}, then {@link #cancel}.
 */
public final class ToolCancellation {
  private static final Logger log = LoggerFactory.getLogger(ToolCancellation.class);

  /** Why a call was cancelled. */
  public enum Reason {
    /** The run was cancelled, by a cancel, its run timeout or the end of its session. */
    RUN_CANCELLED,
    /** The call's own timeout passed, or the server no longer knows the attempt. */
    TIMED_OUT,
    /** The worker is shutting down; the call runs again on another worker. */
    WORKER_SHUTDOWN
  }

  /** A callback registered with {@link #onCancel}; closing it unregisters the callback. */
  public interface Registration extends AutoCloseable {
    @Override
    void close();
  }

  private final List<Runnable> callbacks = new ArrayList<>();
  private Reason reason;

  /** A cancellation not cancelled yet. */
  public ToolCancellation() {}

  /** Whether the call was cancelled. */
  public synchronized boolean isCancelled() {
    return reason != null;
  }

  /** Why the call was cancelled; null while it is not. */
  public synchronized Reason reason() {
    return reason;
  }

  /**
   * Runs {@code callback} once, when the call is cancelled, on the thread that cancels it; at once
   * on this thread if it already was. A callback that throws is logged and the others still run.
   */
  public Registration onCancel(Runnable callback) {
    synchronized (this) {
      if (reason == null) {
        callbacks.add(callback);
        return () -> remove(callback);
      }
    }
    run(callback);
    return () -> {};
  }

  /**
   * Cancels the call for {@code reason} and runs the registered callbacks, in registration order.
   * Only the first cancellation counts.
   *
   * @return whether this call cancelled it
   */
  public boolean cancel(Reason reason) {
    List<Runnable> toRun;
    synchronized (this) {
      if (this.reason != null) {
        return false;
      }
      this.reason = reason;
      toRun = List.copyOf(callbacks);
      callbacks.clear();
    }
    toRun.forEach(ToolCancellation::run);
    return true;
  }

  private synchronized void remove(Runnable callback) {
    callbacks.remove(callback);
  }

  private static void run(Runnable callback) {
    try {
      callback.run();
    } catch (RuntimeException e) {
      log.warn("a tool's cancellation callback failed", e);
    }
  }

  @Override
  public synchronized String toString() {
    return reason == null ? "ToolCancellation[not cancelled]" : "ToolCancellation[" + reason + "]";
  }
}
