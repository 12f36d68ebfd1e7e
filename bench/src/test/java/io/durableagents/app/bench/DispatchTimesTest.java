package io.durableagents.app.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.google.protobuf.Timestamp;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.ActivityTaskCompletedEventAttributes;
import io.temporal.api.history.v1.ActivityTaskStartedEventAttributes;
import io.temporal.api.history.v1.HistoryEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

class DispatchTimesTest {
  private static final long T0 = 1_700_000_000_000L;

  private static HistoryEvent event(long id, EventType type, long atMs) {
    return HistoryEvent.newBuilder()
        .setEventId(id)
        .setEventType(type)
        .setEventTime(
            Timestamp.newBuilder()
                .setSeconds((T0 + atMs) / 1000)
                .setNanos((int) ((T0 + atMs) % 1000) * 1_000_000))
        .build();
  }

  @Test
  void workflowTasksAndActivities_waitFromScheduledToStarted_andRunToCompleted() {
    HistoryEvent activityStarted =
        event(6, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED, 43).toBuilder()
            .setActivityTaskStartedEventAttributes(
                ActivityTaskStartedEventAttributes.newBuilder().setScheduledEventId(5))
            .build();
    List<HistoryEvent> history =
        List.of(
            event(1, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, 0),
            event(2, EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, 0),
            event(3, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, 33),
            event(4, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, 40),
            event(5, EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, 40),
            activityStarted,
            event(7, EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, 50).toBuilder()
                .setActivityTaskCompletedEventAttributes(
                    ActivityTaskCompletedEventAttributes.newBuilder()
                        .setScheduledEventId(5)
                        .setStartedEventId(6))
                .build(),
            event(8, EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, 50),
            event(9, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, 81),
            event(10, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, 93),
            // A task that failed to complete (timed out) is not counted.
            event(11, EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, 100),
            event(12, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, 105));

    DispatchTimes times = DispatchTimes.of(history);

    assertThat(times.workflowTasks()).isEqualTo(2);
    assertThat(times.workflowTaskWaitMs()).isCloseTo(33 + 31, within(1e-6));
    assertThat(times.workflowTaskRunMs()).isCloseTo(7 + 12, within(1e-6));
    assertThat(times.activities()).isEqualTo(1);
    assertThat(times.activityWaitMs()).isCloseTo(3, within(1e-6));
    assertThat(times.activityRunMs()).isCloseTo(7, within(1e-6));
    DispatchTimes twice = times.plus(times);
    assertThat(twice.workflowTasks()).isEqualTo(4);
    assertThat(twice.activityRunMs()).isCloseTo(14, within(1e-6));
    assertThat(twice.workflowTaskWaitMs()).isCloseTo(128, within(1e-6));
  }
}
