package io.durableagents.app.bench;

import com.google.protobuf.Timestamp;
import io.temporal.api.history.v1.HistoryEvent;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a session's time went between the server and its workers, from its history's event times:
 * how long its workflow tasks waited from scheduled to started (the server's dispatch to a polling
 * worker) and ran from started to completed, and how long its activities waited from scheduled to
 * started. Local activities run inside a workflow task and have no times of their own.
 *
 * @param workflowTasks completed workflow tasks
 * @param workflowTaskWaitMs their scheduled-to-started times, summed
 * @param workflowTaskRunMs their started-to-completed times, summed
 * @param activities started activities
 * @param activityWaitMs their scheduled-to-started times, summed
 * @param activityRunMs the started-to-completed times of those that completed, summed
 */
record DispatchTimes(
    int workflowTasks,
    double workflowTaskWaitMs,
    double workflowTaskRunMs,
    int activities,
    double activityWaitMs,
    double activityRunMs) {

  /** Both sessions' times together. */
  DispatchTimes plus(DispatchTimes other) {
    return new DispatchTimes(
        workflowTasks + other.workflowTasks,
        workflowTaskWaitMs + other.workflowTaskWaitMs,
        workflowTaskRunMs + other.workflowTaskRunMs,
        activities + other.activities,
        activityWaitMs + other.activityWaitMs,
        activityRunMs + other.activityRunMs);
  }

  static DispatchTimes of(List<HistoryEvent> events) {
    int tasks = 0;
    double taskWait = 0;
    double taskRun = 0;
    int activities = 0;
    double activityWait = 0;
    double activityRun = 0;
    HistoryEvent scheduled = null;
    HistoryEvent started = null;
    Map<Long, Timestamp> activityScheduled = new HashMap<>();
    Map<Long, Timestamp> activityStarted = new HashMap<>();
    for (HistoryEvent event : events) {
      switch (event.getEventType()) {
        case EVENT_TYPE_WORKFLOW_TASK_SCHEDULED -> scheduled = event;
        case EVENT_TYPE_WORKFLOW_TASK_STARTED -> started = event;
        case EVENT_TYPE_WORKFLOW_TASK_COMPLETED -> {
          tasks++;
          if (started != null) {
            taskRun += ms(started.getEventTime(), event.getEventTime());
            if (scheduled != null) {
              taskWait += ms(scheduled.getEventTime(), started.getEventTime());
            }
          }
          scheduled = null;
          started = null;
        }
        case EVENT_TYPE_ACTIVITY_TASK_SCHEDULED ->
            activityScheduled.put(event.getEventId(), event.getEventTime());
        case EVENT_TYPE_ACTIVITY_TASK_STARTED -> {
          Timestamp at =
              activityScheduled.get(
                  event.getActivityTaskStartedEventAttributes().getScheduledEventId());
          if (at != null) {
            activities++;
            activityWait += ms(at, event.getEventTime());
          }
          activityStarted.put(event.getEventId(), event.getEventTime());
        }
        case EVENT_TYPE_ACTIVITY_TASK_COMPLETED -> {
          Timestamp at =
              activityStarted.get(
                  event.getActivityTaskCompletedEventAttributes().getStartedEventId());
          if (at != null) {
            activityRun += ms(at, event.getEventTime());
          }
        }
        default -> {
          // no dispatch time
        }
      }
    }
    return new DispatchTimes(tasks, taskWait, taskRun, activities, activityWait, activityRun);
  }

  static double ms(Timestamp from, Timestamp to) {
    return (to.getSeconds() - from.getSeconds()) * 1e3 + (to.getNanos() - from.getNanos()) / 1e6;
  }
}
