package io.durableagents.app.bench;

import io.temporal.api.history.v1.HistoryEvent;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What sessions cost in history: events, bytes, and Temporal Cloud actions counted from the events
 * by Temporal Cloud's published rules (an estimate, as Cloud's own per-history estimate is): a
 * workflow start (client, continue-as-new or child), an activity started or retried, all the local
 * activities of one workflow task together, a timer, a search attribute upsert, a signal received
 * or sent, an update accepted, a side effect. Version markers and queries are not in it; a query
 * costs an action too, and none of the measured sessions sends one.
 *
 * @param events history events
 * @param bytes their serialized size
 * @param actions the estimated actions
 */
record HistoryCost(long events, long bytes, long actions) {
  static final HistoryCost NONE = new HistoryCost(0, 0, 0);

  private static final String LOCAL_ACTIVITY_MARKER = "LocalActivity";

  static HistoryCost of(List<HistoryEvent> history) {
    long bytes = 0;
    long actions = 0;
    Set<Long> tasksWithLocalActivities = new HashSet<>();
    for (HistoryEvent event : history) {
      bytes += event.getSerializedSize();
      actions += actionsOf(event);
      if (event.hasMarkerRecordedEventAttributes()
          && LOCAL_ACTIVITY_MARKER.equals(
              event.getMarkerRecordedEventAttributes().getMarkerName())) {
        tasksWithLocalActivities.add(
            event.getMarkerRecordedEventAttributes().getWorkflowTaskCompletedEventId());
      }
    }
    return new HistoryCost(history.size(), bytes, actions + tasksWithLocalActivities.size());
  }

  private static long actionsOf(HistoryEvent event) {
    return switch (event.getEventType()) {
      case EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
          EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
          EVENT_TYPE_TIMER_STARTED,
          EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
          EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
          EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED,
          EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
          EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED ->
          1;
      case EVENT_TYPE_ACTIVITY_TASK_STARTED ->
          Math.max(0, event.getActivityTaskStartedEventAttributes().getAttempt() - 1);
      case EVENT_TYPE_MARKER_RECORDED -> {
        String name = event.getMarkerRecordedEventAttributes().getMarkerName();
        yield name.equals("SideEffect") || name.equals("MutableSideEffect") ? 1 : 0;
      }
      default -> 0;
    };
  }

  HistoryCost plus(HistoryCost other) {
    return new HistoryCost(events + other.events, bytes + other.bytes, actions + other.actions);
  }
}
