package io.durableagents.activities.internal;

import io.durableagents.tools.ToolCancellation;
import io.durableagents.tools.ToolCancellation.Reason;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.activity.ActivityInfo;
import io.temporal.client.ActivityCanceledException;
import io.temporal.client.ActivityCompletionException;
import io.temporal.client.ActivityNotExistsException;
import io.temporal.client.ActivityWorkerShutdownException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires one tool call's {@link ToolCancellation} to everything that ends the call, for as long as
 * its handler runs on the calling thread:
 *
 * <ul>
 *   <li>a regular activity heartbeats every {@code interval}; the server's answer carries the run's
 *       cancel (a cancel, the run timeout, the end of the session), and a heartbeat that finds the
 *       attempt gone or the worker shutting down cancels too;
 *   <li>a local activity, which the SDK can neither heartbeat nor cancel, watches the session's
 *       history for a cancel instead ({@link CancelSignalWatch});
 *   <li>the attempt's start-to-close timeout;
 *   <li>a shutdown of the plugin's workers ({@link RunningTools}).
 * </ul>
 *
 * A cancellation interrupts the handler's thread; {@link #close()} clears a late interrupt, so the
 * thread goes back to the SDK clean (an interrupted thread fails the SDK's completion call).
 */
final class CallCancellation implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CallCancellation.class);

  /** One shared ticker for all calls: a tick only hands a heartbeat to the SDK, or reads a page. */
  private static final ScheduledExecutorService TICKS =
      Executors.newScheduledThreadPool(
          2,
          task -> {
            Thread thread = new Thread(task, "tool-cancellation");
            thread.setDaemon(true);
            return thread;
          });

  private final ToolCancellation cancellation = new ToolCancellation();
  private final RunningTools running;
  private final Thread handlerThread = Thread.currentThread();
  private final List<ScheduledFuture<?>> ticks = new ArrayList<>();
  private final Object interruptLock = new Object();
  private boolean handlerDone;

  private CallCancellation(RunningTools running) {
    this.running = running;
  }

  /** Starts watching for the call of {@code context}, run by the current thread. */
  static CallCancellation start(
      ActivityExecutionContext context, RunningTools running, Duration interval) {
    CallCancellation call = new CallCancellation(running);
    call.watch(context, interval);
    return call;
  }

  ToolCancellation cancellation() {
    return cancellation;
  }

  private void watch(ActivityExecutionContext context, Duration interval) {
    running.add(cancellation);
    cancellation.onCancel(this::interruptHandler);
    ActivityInfo info = context.getInfo();
    Duration timeout = info.getStartToCloseTimeout();
    if (timeout != null && !timeout.isZero()) {
      ticks.add(
          TICKS.schedule(
              () -> cancellation.cancel(Reason.TIMED_OUT),
              timeout.toMillis(),
              TimeUnit.MILLISECONDS));
    }
    long every = interval.toMillis();
    if (info.isLocal()) {
      CancelSignalWatch watch =
          new CancelSignalWatch(
              context.getWorkflowClient().getWorkflowServiceStubs(),
              info.getNamespace(),
              info.getWorkflowId(),
              info.getWorkflowRunId());
      ticks.add(
          TICKS.scheduleWithFixedDelay(() -> look(watch), every, every, TimeUnit.MILLISECONDS));
    } else {
      context.getCancellationToken().onCancel(() -> cancellation.cancel(Reason.RUN_CANCELLED));
      ticks.add(
          TICKS.scheduleWithFixedDelay(
              () -> heartbeat(context), every, every, TimeUnit.MILLISECONDS));
    }
  }

  private void heartbeat(ActivityExecutionContext context) {
    if (cancellation.isCancelled()) {
      return;
    }
    try {
      context.heartbeat(null);
    } catch (ActivityCanceledException e) {
      cancellation.cancel(Reason.RUN_CANCELLED);
    } catch (ActivityWorkerShutdownException e) {
      cancellation.cancel(Reason.WORKER_SHUTDOWN);
    } catch (ActivityNotExistsException e) {
      cancellation.cancel(Reason.TIMED_OUT);
    } catch (ActivityCompletionException e) {
      // reset or paused: the attempt's result is still wanted later; nothing to stop
    } catch (RuntimeException e) {
      log.warn(
          "heartbeat of tool activity {} failed: {}",
          context.getInfo().getActivityId(),
          e.toString());
    }
  }

  private void look(CancelSignalWatch watch) {
    if (cancellation.isCancelled()) {
      return;
    }
    try {
      if (watch.cancelArrived()) {
        cancellation.cancel(Reason.RUN_CANCELLED);
      }
    } catch (RuntimeException e) {
      log.warn("reading the history for a cancel of a local tool failed: {}", e.toString());
    }
  }

  private void interruptHandler() {
    synchronized (interruptLock) {
      if (!handlerDone) {
        handlerThread.interrupt();
      }
    }
  }

  /** The handler returned: stops watching, and clears an interrupt it did not consume. */
  @Override
  public void close() {
    synchronized (interruptLock) {
      handlerDone = true;
    }
    ticks.forEach(tick -> tick.cancel(false));
    running.remove(cancellation);
    if (Thread.interrupted()) {
      log.debug("cleared the interrupt of a cancelled tool call");
    }
  }
}
