package io.durableagents.app.bench;

import io.temporal.api.common.v1.Payloads;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.MarkerRecordedEventAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one agent step costs in history, read from a stretch of a session's events: the activities
 * and local activities it runs, its workflow tasks, its events, and its bytes by kind of event.
 */
final class StepAnatomy {
  private static final String EVENT_PREFIX = "EVENT_TYPE_";
  private static final String LOCAL_ACTIVITY_MARKER = "LocalActivity";
  private static final String MODEL_TURN_SUFFIX = "ModelTurn";

  final Map<String, Double> tasksPerStep = new LinkedHashMap<>();
  final Map<String, Double> bytesPerStep = new LinkedHashMap<>();
  double activities;
  double localActivities;
  double workflowTasks;
  double events;
  double bytes;

  /**
   * @param all the session's events, so completions can be matched to what they complete
   * @param from index of the window's first event
   * @param to index after the window's last event
   * @param steps agent steps in the window
   */
  static StepAnatomy of(List<HistoryEvent> all, int from, int to, int steps) {
    StepAnatomy anatomy = new StepAnatomy();
    Map<Long, String> activityTypes = new HashMap<>();
    for (HistoryEvent event : all.subList(0, to)) {
      if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
        activityTypes.put(
            event.getEventId(),
            event.getActivityTaskScheduledEventAttributes().getActivityType().getName());
      }
    }
    for (HistoryEvent event : all.subList(from, to)) {
      String kind = event.getEventType().name().replace(EVENT_PREFIX, "");
      switch (event.getEventType()) {
        case EVENT_TYPE_ACTIVITY_TASK_SCHEDULED -> {
          String type = activityTypes.get(event.getEventId());
          anatomy.activities++;
          anatomy.tasksPerStep.merge(type, 1.0, Double::sum);
          kind += " " + type;
        }
        case EVENT_TYPE_ACTIVITY_TASK_STARTED ->
            kind +=
                " "
                    + activityTypes.get(
                        event.getActivityTaskStartedEventAttributes().getScheduledEventId());
        case EVENT_TYPE_ACTIVITY_TASK_COMPLETED ->
            kind +=
                " "
                    + activityTypes.get(
                        event.getActivityTaskCompletedEventAttributes().getScheduledEventId());
        case EVENT_TYPE_MARKER_RECORDED -> {
          String marker = markerKind(event.getMarkerRecordedEventAttributes());
          if (marker.startsWith(LOCAL_ACTIVITY_MARKER)) {
            anatomy.localActivities++;
            anatomy.tasksPerStep.merge(
                "local " + marker.substring(LOCAL_ACTIVITY_MARKER.length()).strip(),
                1.0,
                Double::sum);
          }
          kind += " " + marker;
        }
        case EVENT_TYPE_WORKFLOW_TASK_COMPLETED -> anatomy.workflowTasks++;
        default -> {
          // counted as an event, by its type
        }
      }
      anatomy.events++;
      anatomy.bytes += event.getSerializedSize();
      anatomy.bytesPerStep.merge(kind, (double) event.getSerializedSize(), Double::sum);
    }
    anatomy.activities /= steps;
    anatomy.localActivities /= steps;
    anatomy.workflowTasks /= steps;
    anatomy.events /= steps;
    anatomy.bytes /= steps;
    anatomy.tasksPerStep.replaceAll((k, v) -> v / steps);
    anatomy.bytesPerStep.replaceAll((k, v) -> v / steps);
    return anatomy;
  }

  /**
   * Indexes of the events that start a model turn: the ActivityTaskScheduled of a regular model
   * activity, or the marker of a local one (recorded when its workflow task completes). Any
   * activity type ending in {@code ModelTurn}: the plugin's and the baseline's.
   */
  static List<Integer> modelTurnStarts(List<HistoryEvent> events) {
    List<Integer> starts = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      HistoryEvent event = events.get(i);
      String type = null;
      if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
        type = event.getActivityTaskScheduledEventAttributes().getActivityType().getName();
      } else if (event.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED) {
        String marker = markerKind(event.getMarkerRecordedEventAttributes());
        if (marker.startsWith(LOCAL_ACTIVITY_MARKER + " ")) {
          type = marker.substring(LOCAL_ACTIVITY_MARKER.length() + 1);
        }
      }
      if (type != null && type.endsWith(MODEL_TURN_SUFFIX)) {
        starts.add(i);
      }
    }
    return starts;
  }

  /** {@code LocalActivity <type>} for a local activity's marker, else the marker's name. */
  private static String markerKind(MarkerRecordedEventAttributes marker) {
    String name = marker.getMarkerName();
    Payloads type = marker.getDetailsMap().get("type");
    if (LOCAL_ACTIVITY_MARKER.equals(name) && type != null && type.getPayloadsCount() > 0) {
      String json = type.getPayloads(0).getData().toStringUtf8();
      return name + " " + json.replace("\"", "");
    }
    return name;
  }
}
