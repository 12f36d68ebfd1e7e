package io.durableagents.testing.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.durableagents.workflow.FailureTypes;
import io.temporal.api.common.v1.ActivityType;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.failure.v1.ApplicationFailureInfo;
import io.temporal.api.failure.v1.Failure;
import io.temporal.api.history.v1.ActivityTaskCompletedEventAttributes;
import io.temporal.api.history.v1.ActivityTaskFailedEventAttributes;
import io.temporal.api.history.v1.ActivityTaskScheduledEventAttributes;
import io.temporal.api.history.v1.ActivityTaskTimedOutEventAttributes;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.MarkerRecordedEventAttributes;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rule the crash tests (CrashRecoveryIT, the chaos suite) read from histories: a turn is sent
 * again only after a miss.
 */
class ModelTurnActivitiesTest {
  private final List<HistoryEvent> events = new ArrayList<>();

  @Test
  void aTurnSentAgainAfterHeldSavesUnknown_isNoRepeat() {
    long first = scheduled("5", 2);
    failed(first, FailureTypes.HELD_SAVES_UNKNOWN);
    long second = scheduled("9", 2);
    completed(second);

    ModelTurnActivities turns = ModelTurnActivities.of(events);

    assertThat(turns.violations()).isEmpty();
    assertThat(turns.ofStep(2))
        .extracting(ModelTurnActivities.Entry::activityId)
        .containsExactly("5", "9");
    assertThat(turns.completedSteps()).containsExactly(2);
  }

  @Test
  void aTurnSentAgainAfterTheStoreWasUnavailable_isNoRepeat() {
    long first = scheduled("5", 2);
    failed(first, FailureTypes.STORE_UNAVAILABLE);
    completed(scheduled("9", 2));

    ModelTurnActivities turns = ModelTurnActivities.of(events);

    assertThat(turns.violations()).isEmpty();
    assertThat(turns.ofStep(2))
        .extracting(ModelTurnActivities.Entry::heldSavesUnknown)
        .containsExactly(false, false);
  }

  @Test
  void aTurnScheduledAgainAfterItCompleted_isARepeat() {
    completed(scheduled("5", 2));
    completed(scheduled("9", 2));

    assertThat(ModelTurnActivities.of(events).violations())
        .singleElement()
        .asString()
        .contains("step 2", "activity 9", "5 step 2 COMPLETED");
  }

  @Test
  void aTurnSentAgainAfterAnyOtherFailure_isARepeat() {
    long first = scheduled("5", 2);
    failed(first, "model_error");
    completed(scheduled("9", 2));
    long third = scheduled("12", 4);
    timedOut(third);
    completed(scheduled("13", 4));

    assertThat(ModelTurnActivities.of(events).violations())
        .hasSize(2)
        .anySatisfy(v -> assertThat(v).contains("step 2", "FAILED model_error"))
        .anySatisfy(v -> assertThat(v).contains("step 4", "TIMED_OUT"));
  }

  @Test
  void aStepWhoseLastTurnDidNotComplete_isReported() {
    scheduled("5", 2);

    assertThat(ModelTurnActivities.of(events).violations())
        .singleElement()
        .asString()
        .contains("step 2", "OPEN", "not completed");
  }

  @Test
  void localTurnsAreReadFromTheirMarkers() {
    marker("a1", 2, null);
    marker("a2", 2, FailureTypes.HELD_SAVES_UNKNOWN);
    marker("a3", 2, null);

    ModelTurnActivities turns = ModelTurnActivities.of(events);

    assertThat(turns.ofStep(2))
        .extracting(ModelTurnActivities.Entry::outcome)
        .containsExactly(
            ModelTurnActivities.Outcome.COMPLETED,
            ModelTurnActivities.Outcome.FAILED,
            ModelTurnActivities.Outcome.COMPLETED);
    assertThat(turns.violations())
        .singleElement()
        .asString()
        .contains("activity a2", "a1 step 2 COMPLETED");
  }

  private long scheduled(String activityId, int step) {
    return add(
        HistoryEvent.newBuilder()
            .setEventType(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
            .setActivityTaskScheduledEventAttributes(
                ActivityTaskScheduledEventAttributes.newBuilder()
                    .setActivityId(activityId)
                    .setActivityType(ActivityType.newBuilder().setName("agents.ModelTurn"))
                    .setInput(payloads("{\"sessionId\":\"s\",\"step\":" + step + "}"))));
  }

  private void completed(long scheduled) {
    add(
        HistoryEvent.newBuilder()
            .setEventType(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED)
            .setActivityTaskCompletedEventAttributes(
                ActivityTaskCompletedEventAttributes.newBuilder().setScheduledEventId(scheduled)));
  }

  private void failed(long scheduled, String type) {
    add(
        HistoryEvent.newBuilder()
            .setEventType(EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED)
            .setActivityTaskFailedEventAttributes(
                ActivityTaskFailedEventAttributes.newBuilder()
                    .setScheduledEventId(scheduled)
                    .setFailure(applicationFailure(type))));
  }

  private void timedOut(long scheduled) {
    add(
        HistoryEvent.newBuilder()
            .setEventType(EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT)
            .setActivityTaskTimedOutEventAttributes(
                ActivityTaskTimedOutEventAttributes.newBuilder().setScheduledEventId(scheduled)));
  }

  private void marker(String activityId, int step, String failureType) {
    MarkerRecordedEventAttributes.Builder marker =
        MarkerRecordedEventAttributes.newBuilder()
            .setMarkerName("LocalActivity")
            .putDetails("type", payloads("\"agents.ModelTurn\""))
            .putDetails("activityId", payloads("\"" + activityId + "\""))
            .putDetails("input", payloads("{\"sessionId\":\"s\",\"step\":" + step + "}"));
    if (failureType != null) {
      marker.setFailure(applicationFailure(failureType));
    }
    add(
        HistoryEvent.newBuilder()
            .setEventType(EventType.EVENT_TYPE_MARKER_RECORDED)
            .setMarkerRecordedEventAttributes(marker));
  }

  /** An activity failure as the server records it: the application failure may be a cause. */
  private static Failure applicationFailure(String type) {
    return Failure.newBuilder()
        .setMessage("activity failed")
        .setCause(
            Failure.newBuilder()
                .setMessage(type)
                .setApplicationFailureInfo(ApplicationFailureInfo.newBuilder().setType(type)))
        .build();
  }

  private long add(HistoryEvent.Builder event) {
    long id = events.size() + 1L;
    events.add(event.setEventId(id).build());
    return id;
  }

  private static Payloads payloads(String json) {
    return Payloads.newBuilder()
        .addPayloads(Payload.newBuilder().setData(ByteString.copyFromUtf8(json)))
        .build();
  }
}
