package io.durableagents.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.conversation.Message;
import io.durableagents.conversation.Usage;
import io.durableagents.session.RunStatus;
import io.durableagents.store.internal.ProjectionRebuilder;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.temporal.api.common.v1.ActivityType;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.failure.v1.Failure;
import io.temporal.api.history.v1.ActivityTaskScheduledEventAttributes;
import io.temporal.api.history.v1.History;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.MarkerRecordedEventAttributes;
import io.temporal.api.history.v1.WorkflowExecutionStartedEventAttributes;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.GlobalDataConverter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Where a history records checkpoint saves, whatever the workflow uses to make them: activity
 * inputs, local activity markers, saves folded into a model turn's input.
 */
class ProjectionRebuilderDecodingTest {
  private static final DataConverter CONVERTER = GlobalDataConverter.get();

  private final List<HistoryEvent> events = new ArrayList<>();

  @Test
  void findsSavesInActivityInputs_localActivityMarkers_andModelTurnInputs_inHistoryOrder() {
    CheckpointSave first = save(1, 0, "hello");
    CheckpointSave second = save(2, 1, "an answer");
    CheckpointSave third = save(3, 2, "a tool result");
    CheckpointSave fourth = save(4, 3, "the end");
    started();
    scheduled("agents.ResolveAgent", Map.of("agent", "helper"));
    scheduled(ProjectionRebuilder.SAVE_CHECKPOINT, first);
    scheduled(ProjectionRebuilder.MODEL_TURN, modelTurn(null));
    localActivity(ProjectionRebuilder.SAVE_CHECKPOINT, second, false);
    localActivity(ProjectionRebuilder.SAVE_CHECKPOINT, save(9, 9, "never written"), true);
    scheduled("agents.ExecuteTool", Map.of("toolCallId", "call_0_0"));
    scheduled(ProjectionRebuilder.MODEL_TURN, modelTurn(third));
    localActivity(ProjectionRebuilder.MODEL_TURN, modelTurn(fourth), false);
    localActivity("agents.Other", first, false);

    List<CheckpointSave> saves =
        ProjectionRebuilder.newInstance()
            .saves(
                List.of(
                    new WorkflowExecutionHistory(
                        History.newBuilder().addAllEvents(events).build())));

    assertThat(saves).containsExactly(first, second, third, fourth);
  }

  private static CheckpointSave save(int step, int firstSeq, String text) {
    return new CheckpointSave(
        "chat-1",
        "exec-1",
        "helper",
        1,
        step,
        RunStatus.IN_PROGRESS,
        null,
        firstSeq,
        List.of(Message.user(text)),
        new Usage(step, step),
        "fp",
        1_000L + step,
        List.of(),
        null,
        null,
        null);
  }

  /** A model turn's input as the workflow sends it, with or without a folded save. */
  private static Map<String, Object> modelTurn(CheckpointSave folded) {
    Map<String, Object> request = new LinkedHashMap<>();
    request.put("sessionId", "chat-1");
    request.put("agent", "helper");
    request.put("step", 2);
    request.put("storedMessages", 2);
    if (folded != null) {
      request.put("saves", Map.of("kind", "write", "entries", List.of(folded)));
    }
    return request;
  }

  private void started() {
    events.add(
        HistoryEvent.newBuilder()
            .setEventId(events.size() + 1)
            .setEventType(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED)
            .setWorkflowExecutionStartedEventAttributes(
                WorkflowExecutionStartedEventAttributes.getDefaultInstance())
            .build());
  }

  private void scheduled(String type, Object input) {
    events.add(
        HistoryEvent.newBuilder()
            .setEventId(events.size() + 1)
            .setEventType(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
            .setActivityTaskScheduledEventAttributes(
                ActivityTaskScheduledEventAttributes.newBuilder()
                    .setActivityId(String.valueOf(events.size()))
                    .setActivityType(ActivityType.newBuilder().setName(type))
                    .setInput(payloads(input)))
            .build());
  }

  private void localActivity(String type, Object input, boolean failed) {
    MarkerRecordedEventAttributes.Builder marker =
        MarkerRecordedEventAttributes.newBuilder()
            .setMarkerName("LocalActivity")
            .putDetails("activityId", payloads(String.valueOf(events.size())))
            .putDetails("type", payloads(type))
            .putDetails("input", payloads(input));
    if (failed) {
      marker.setFailure(Failure.newBuilder().setMessage("gave up"));
    }
    events.add(
        HistoryEvent.newBuilder()
            .setEventId(events.size() + 1)
            .setEventType(EventType.EVENT_TYPE_MARKER_RECORDED)
            .setMarkerRecordedEventAttributes(marker)
            .build());
  }

  private static Payloads payloads(Object value) {
    return CONVERTER.toPayloads(value).orElseThrow();
  }
}
