package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.workflow.Rejection;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.RunStatus;
import io.durableagents.workflow.SessionErrors;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowUpdateException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Oversized payloads fail clearly and at once: never a retry storm, never a truncation. */
class PayloadGuardTest {
  @TempDir Path dir;

  @Test
  void resultsJustUnderTheLimit_passUnchanged() {
    String answer = "z".repeat(520_000);
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            ScriptedModelProvider.fromJson(
                "{\"turns\":[{\"toolCalls\":[{\"name\":\"big\",\"arguments\":{\"size\":524000}}]},"
                    + "{\"text\":\"" + answer + "\"}]}"),
            10)) {
      RunResult result = kit.send("under-1", "go");

      assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(result.toolCalls().get(0).result().get("data").asText()).hasSize(524_000);
      assertThat(result.text()).isEqualTo(answer);
    }
  }

  @Test
  void anOversizedToolResult_becomesAnErrorResultNamingTheLimit_andTheRunGoesOn() {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of("{'turns':[{'toolCalls':[{'name':'big','arguments':{'size':524300}}]},{'text':'ok'}]}"),
            10)) {
      RunResult result = kit.send("big-1", "go");

      assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(result.toolCalls().get(0).result().get("error").asText()).isEqualTo("result_too_large");
      assertThat(result.toolCalls().get(0).result().get("message").asText()).contains("limit of 524288 bytes");
      long toolAttempts =
          kit.client.fetchHistory("big-1").getEvents().stream()
              .filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
              .filter(e -> e.getActivityTaskStartedEventAttributes().getAttempt() > 1)
              .count();
      assertThat(toolAttempts).isZero();
    }
  }

  @Test
  void anOversizedModelAnswer_failsTheRunWithPayloadTooLarge_withoutRetrying() {
    String huge = "y".repeat(525_000);
    try (SessionTestKit kit =
        new SessionTestKit(dir, ScriptedModelProvider.fromJson("{\"turns\":[{\"text\":\"" + huge + "\"}]}"), 10)) {
      RunResult result = kit.send("big-2", "go");

      assertThat(result.status()).isEqualTo(RunStatus.FAILED);
      assertThat(result.error().code()).isEqualTo("payload_too_large");
      assertThat(result.error().message()).contains("524288");
      int scheduled = 0;
      for (HistoryEvent event : kit.client.fetchHistory("big-2").getEvents()) {
        if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
            && event.getActivityTaskScheduledEventAttributes().getActivityType().getName().equals("agents.ModelTurn")) {
          scheduled++;
        }
      }
      assertThat(scheduled).isEqualTo(1);
    }
  }

  @Test
  void anOversizedInput_isRefusedBeforeItReachesHistory() {
    try (SessionTestKit kit = new SessionTestKit(dir, Scripts.of("{'turns':[{'text':'ok'}]}"), 10)) {
      kit.send("big-3", "hello");
      assertThatThrownBy(() -> kit.send("big-3", "z".repeat(300_000)))
          .isInstanceOf(WorkflowUpdateException.class)
          .satisfies(e -> {
            assertThat(Rejection.from(e).type()).isEqualTo(SessionErrors.INVALID_INPUT);
            assertThat(Rejection.from(e).message()).contains("over the limit of 262144");
          });
    }
  }
}
