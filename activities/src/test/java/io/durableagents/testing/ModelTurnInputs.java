package io.durableagents.testing;

import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.MarkerRecordedEventAttributes;
import java.util.ArrayList;
import java.util.List;

/** The model turns a workflow history records, as the JSON of their inputs. */
public final class ModelTurnInputs {
  private static final String MODEL_TURN = "agents.ModelTurn";

  private ModelTurnInputs() {}

  /**
   * The inputs of the model turns in {@code events}, in order: from scheduled activities and from
   * local activity markers (attempts that failed included).
   */
  public static List<String> of(List<HistoryEvent> events) {
    List<String> inputs = new ArrayList<>();
    for (HistoryEvent event : events) {
      String input = inputOf(event);
      if (input != null) {
        inputs.add(input);
      }
    }
    return inputs;
  }

  /**
   * The input of {@code event} when it schedules a model turn or records a local one, else null.
   */
  public static String inputOf(HistoryEvent event) {
    if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
      var scheduled = event.getActivityTaskScheduledEventAttributes();
      return scheduled.getActivityType().getName().equals(MODEL_TURN)
          ? scheduled.getInput().getPayloads(0).getData().toStringUtf8()
          : null;
    }
    if (event.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED) {
      MarkerRecordedEventAttributes marker = event.getMarkerRecordedEventAttributes();
      return isLocalModelTurn(marker) && marker.containsDetails("input")
          ? marker.getDetailsOrThrow("input").getPayloads(0).getData().toStringUtf8()
          : null;
    }
    return null;
  }

  /** Whether {@code marker} records a model turn run as a local activity. */
  public static boolean isLocalModelTurn(MarkerRecordedEventAttributes marker) {
    return marker.containsDetails("type")
        && marker
            .getDetailsOrThrow("type")
            .getPayloads(0)
            .getData()
            .toStringUtf8()
            .contains("ModelTurn");
  }
}
