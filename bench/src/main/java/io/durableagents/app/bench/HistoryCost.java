package io.durableagents.app.bench;

import io.temporal.api.history.v1.HistoryEvent;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

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
 * @param actions the estimated actions by kind (e.g. {@code activity}, {@code update})
 */
record HistoryCost(long events, long bytes, Map<String, Long> actions) {
  static final String LOCAL_ACTIVITIES = "local activities (one per workflow task)";

  private static final String LOCAL_ACTIVITY_MARKER = "LocalActivity";

  HistoryCost {
    actions = Map.copyOf(actions);
  }

  static HistoryCost of(List<HistoryEvent> history) {
    long bytes = 0;
    Map<String, Long> actions = new TreeMap<>();
    Set<Long> tasksWithLocalActivities = new HashSet<>();
    for (HistoryEvent event : history) {
      bytes += event.getSerializedSize();
      String kind = kindOf(event);
      if (kind != null) {
        long count =
            kind.equals("activity retry")
                ? event.getActivityTaskStartedEventAttributes().getAttempt() - 1
                : 1;
        if (count > 0) {
          actions.merge(kind, count, Long::sum);
        }
      }
      if (event.hasMarkerRecordedEventAttributes()
          && LOCAL_ACTIVITY_MARKER.equals(
              event.getMarkerRecordedEventAttributes().getMarkerName())) {
        tasksWithLocalActivities.add(
            event.getMarkerRecordedEventAttributes().getWorkflowTaskCompletedEventId());
      }
    }
    if (!tasksWithLocalActivities.isEmpty()) {
      actions.put(LOCAL_ACTIVITIES, (long) tasksWithLocalActivities.size());
    }
    return new HistoryCost(history.size(), bytes, actions);
  }

  /** The kind of action {@code event} records, or null for none. */
  private static String kindOf(HistoryEvent event) {
    return switch (event.getEventType()) {
      case EVENT_TYPE_WORKFLOW_EXECUTION_STARTED -> "workflow start";
      case EVENT_TYPE_ACTIVITY_TASK_SCHEDULED -> "activity";
      case EVENT_TYPE_ACTIVITY_TASK_STARTED -> "activity retry";
      case EVENT_TYPE_TIMER_STARTED -> "timer";
      case EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES -> "search attribute upsert";
      case EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED -> "signal received";
      case EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED -> "signal sent";
      case EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED -> "update";
      case EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED -> "child workflow start";
      case EVENT_TYPE_MARKER_RECORDED -> {
        String name = event.getMarkerRecordedEventAttributes().getMarkerName();
        yield name.equals("SideEffect") || name.equals("MutableSideEffect") ? "side effect" : null;
      }
      default -> null;
    };
  }

  /** All the actions, of every kind. */
  long totalActions() {
    return actions.values().stream().mapToLong(Long::longValue).sum();
  }

  HistoryCost plus(HistoryCost other) {
    Map<String, Long> sum = new TreeMap<>(actions);
    other.actions.forEach((kind, count) -> sum.merge(kind, count, Long::sum));
    return new HistoryCost(events + other.events, bytes + other.bytes, sum);
  }
}
