package io.durableagents.app.bench;

import com.google.protobuf.Timestamp;
import io.temporal.api.history.v1.HistoryEvent;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a session's time went, read from its history: per activity type (and for workflow tasks)
 * how many ran, how long each waited in its task queue and how long it ran.
 */
final class ActivityTimings {
  static final String WORKFLOW_TASK = "workflow task";

  /** Count, mean queue wait and mean run time of one kind of task, in ms. */
  record Timing(int count, double queueMs, double runMs) {}

  private ActivityTimings() {}

  static Map<String, Timing> of(List<HistoryEvent> events) {
    Map<Long, HistoryEvent> byId = new HashMap<>();
    Map<String, double[]> sums = new LinkedHashMap<>();
    HistoryEvent workflowTaskScheduled = null;
    HistoryEvent workflowTaskStarted = null;
    for (HistoryEvent event : events) {
      byId.put(event.getEventId(), event);
      switch (event.getEventType()) {
        case EVENT_TYPE_ACTIVITY_TASK_COMPLETED -> {
          HistoryEvent scheduled =
              byId.get(event.getActivityTaskCompletedEventAttributes().getScheduledEventId());
          HistoryEvent started =
              byId.get(event.getActivityTaskCompletedEventAttributes().getStartedEventId());
          if (scheduled != null && started != null) {
            add(
                sums,
                scheduled.getActivityTaskScheduledEventAttributes().getActivityType().getName(),
                scheduled,
                started,
                event);
          }
        }
        case EVENT_TYPE_WORKFLOW_TASK_SCHEDULED -> workflowTaskScheduled = event;
        case EVENT_TYPE_WORKFLOW_TASK_STARTED -> workflowTaskStarted = event;
        case EVENT_TYPE_WORKFLOW_TASK_COMPLETED -> {
          if (workflowTaskScheduled != null && workflowTaskStarted != null) {
            add(sums, WORKFLOW_TASK, workflowTaskScheduled, workflowTaskStarted, event);
          }
        }
        default -> {
          // not timed
        }
      }
    }
    Map<String, Timing> timings = new LinkedHashMap<>();
    sums.forEach(
        (kind, sum) ->
            timings.put(kind, new Timing((int) sum[0], sum[1] / sum[0], sum[2] / sum[0])));
    return timings;
  }

  private static void add(
      Map<String, double[]> sums,
      String kind,
      HistoryEvent scheduled,
      HistoryEvent started,
      HistoryEvent closed) {
    double[] sum = sums.computeIfAbsent(kind, k -> new double[3]);
    sum[0]++;
    sum[1] += ms(scheduled.getEventTime(), started.getEventTime());
    sum[2] += ms(started.getEventTime(), closed.getEventTime());
  }

  private static double ms(Timestamp from, Timestamp to) {
    return (to.getSeconds() - from.getSeconds()) * 1e3 + (to.getNanos() - from.getNanos()) / 1e6;
  }
}
