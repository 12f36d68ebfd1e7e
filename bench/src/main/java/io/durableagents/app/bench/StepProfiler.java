package io.durableagents.app.bench;

import io.temporal.activity.ActivityExecutionContext;
import io.temporal.activity.ActivityInfo;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptorBase;
import io.temporal.workflow.Promise;
import io.temporal.workflow.unsafe.WorkflowUnsafe;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where the time of a step goes, seen from inside the worker: a worker interceptor that times, per
 * activity type, how long each call spent in its handler and how long the workflow waited from its
 * call to having the result. For activities and local activities alike, so it also sees the local
 * activities that history records without times.
 *
 * <p>Installed only on the bench's profiling worker, which runs one session at a time; the measured
 * rounds run on a worker without it. Calls seen while replaying are not counted.
 */
final class StepProfiler extends WorkerInterceptorBase {
  /**
   * The pseudo activity type under which the workflow's own time is counted: from the moment it has
   * one call's result to its next call (its code, and the SDK's hand-back to its thread).
   */
  static final String WORKFLOW_CODE = "workflow code";

  /** Totals of one activity type. */
  static final class Totals {
    long calls;
    long handlerNanos;
    long waitedNanos;
  }

  private final Map<String, Totals> byType = new LinkedHashMap<>();

  /** Forgets everything seen so far. */
  synchronized void reset() {
    byType.clear();
  }

  /** A copy of the totals by activity type. */
  synchronized Map<String, Totals> snapshot() {
    Map<String, Totals> copy = new LinkedHashMap<>();
    byType.forEach(
        (type, totals) -> {
          Totals t = new Totals();
          t.calls = totals.calls;
          t.handlerNanos = totals.handlerNanos;
          t.waitedNanos = totals.waitedNanos;
          copy.put(type, t);
        });
    return copy;
  }

  /** Adds {@code more} to {@code into}. */
  static void merge(Map<String, Totals> into, Map<String, Totals> more) {
    more.forEach(
        (type, totals) -> {
          Totals sum = into.computeIfAbsent(type, k -> new Totals());
          sum.calls += totals.calls;
          sum.handlerNanos += totals.handlerNanos;
          sum.waitedNanos += totals.waitedNanos;
        });
  }

  private synchronized void handler(String type, long nanos) {
    byType.computeIfAbsent(type, k -> new Totals()).handlerNanos += nanos;
  }

  private synchronized void waited(String type, long nanos) {
    Totals totals = byType.computeIfAbsent(type, k -> new Totals());
    totals.calls++;
    totals.waitedNanos += nanos;
  }

  @Override
  public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
    return new WorkflowInboundCallsInterceptorBase(next) {
      @Override
      public void init(WorkflowOutboundCallsInterceptor outbound) {
        super.init(new Outbound(outbound));
      }
    };
  }

  @Override
  public ActivityInboundCallsInterceptor interceptActivity(ActivityInboundCallsInterceptor next) {
    return new ActivityInboundCallsInterceptorBase(next) {
      private ActivityInfo info;

      @Override
      public void init(ActivityExecutionContext context) {
        info = context.getInfo();
        super.init(context);
      }

      @Override
      public ActivityInboundCallsInterceptor.ActivityOutput execute(
          ActivityInboundCallsInterceptor.ActivityInput input) {
        long t0 = System.nanoTime();
        try {
          return super.execute(input);
        } finally {
          if (info != null) {
            handler(info.getActivityType(), System.nanoTime() - t0);
          }
        }
      }
    };
  }

  /**
   * Times each call from the workflow's side, and the workflow's own time between a result and its
   * next call; one per workflow execution. Not counted while replaying.
   */
  private final class Outbound extends WorkflowOutboundCallsInterceptorBase {
    /** When the workflow last had a result, or 0 before its first or while a call is out. */
    private long readyAt;

    Outbound(WorkflowOutboundCallsInterceptor next) {
      super(next);
    }

    @Override
    public <R> ActivityOutput<R> executeActivity(ActivityInput<R> input) {
      long t0 = System.nanoTime();
      ActivityOutput<R> output = super.executeActivity(input);
      observe(input.getActivityName(), t0, output.getResult());
      return output;
    }

    @Override
    public <R> LocalActivityOutput<R> executeLocalActivity(LocalActivityInput<R> input) {
      long t0 = System.nanoTime();
      LocalActivityOutput<R> output = super.executeLocalActivity(input);
      observe(input.getActivityName(), t0, output.getResult());
      return output;
    }

    private void observe(String type, long t0, Promise<?> result) {
      if (WorkflowUnsafe.isReplaying()) {
        readyAt = 0;
        return;
      }
      if (readyAt != 0) {
        waited(WORKFLOW_CODE, t0 - readyAt);
      }
      readyAt = 0;
      result.handle(
          (value, failure) -> {
            if (!WorkflowUnsafe.isReplaying()) {
              long now = System.nanoTime();
              waited(type, now - t0);
              readyAt = now;
            }
            return null;
          });
    }
  }
}
