package io.durableagents.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.ActivityTaskStartedEventAttributes;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.MarkerRecordedEventAttributes;
import java.util.List;
import org.junit.jupiter.api.Test;

class HistoryCostTest {
  private static HistoryEvent event(EventType type) {
    return HistoryEvent.newBuilder().setEventType(type).build();
  }

  private static HistoryEvent marker(String name, long task) {
    return event(EventType.EVENT_TYPE_MARKER_RECORDED).toBuilder()
        .setMarkerRecordedEventAttributes(
            MarkerRecordedEventAttributes.newBuilder()
                .setMarkerName(name)
                .setWorkflowTaskCompletedEventId(task))
        .build();
  }

  private static HistoryEvent activityStarted(int attempt) {
    return event(EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED).toBuilder()
        .setActivityTaskStartedEventAttributes(
            ActivityTaskStartedEventAttributes.newBuilder().setAttempt(attempt))
        .build();
  }

  @Test
  void actions_followCloudsRules() {
    List<HistoryEvent> history =
        List.of(
            event(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED), // 1
            event(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED), // 1
            event(EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED),
            event(EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED),
            event(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED),
            // Two local activities of one task are one action, a third in another task one more.
            marker("LocalActivity", 5),
            marker("LocalActivity", 5),
            marker("LocalActivity", 9),
            marker("Version", 5), // free
            marker("SideEffect", 5), // 1
            event(EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES), // 1
            event(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED), // 1
            activityStarted(3), // two retries: 2
            event(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED),
            event(EventType.EVENT_TYPE_TIMER_STARTED), // 1
            event(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED), // 1
            event(EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED)); // 1

    HistoryCost cost = HistoryCost.of(history);

    assertThat(cost.totalActions()).isEqualTo(1 + 1 + 2 + 1 + 1 + 1 + 2 + 1 + 1 + 1);
    assertThat(cost.actions())
        .containsEntry("workflow start", 1L)
        .containsEntry("update", 1L)
        .containsEntry(HistoryCost.LOCAL_ACTIVITIES, 2L)
        .containsEntry("side effect", 1L)
        .containsEntry("search attribute upsert", 1L)
        .containsEntry("activity", 1L)
        .containsEntry("activity retry", 2L)
        .containsEntry("timer", 1L)
        .containsEntry("signal received", 1L)
        .containsEntry("child workflow start", 1L)
        .hasSize(10);
    assertThat(cost.events()).isEqualTo(history.size());
    assertThat(cost.bytes())
        .isEqualTo(history.stream().mapToLong(HistoryEvent::getSerializedSize).sum());
    assertThat(cost.plus(cost).totalActions()).isEqualTo(2 * cost.totalActions());
    assertThat(cost.plus(cost).actions()).containsEntry("activity retry", 4L);
  }
}
