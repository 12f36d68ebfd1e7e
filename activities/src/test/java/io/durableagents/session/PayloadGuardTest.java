package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.conversation.Message;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.ToolCallRecord;
import io.durableagents.workflow.internal.wire.Rejection;
import io.durableagents.workflow.internal.wire.StoredResults;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowUpdateException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Oversized payloads are stored by reference or fail clearly and at once: never a retry storm,
 * never a truncation.
 */
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
                    + "{\"text\":\""
                    + answer
                    + "\"}]}"),
            10)) {
      RunResult result = kit.send("under-1", "go");

      assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
      // Over the run result's bound for tool calls: the result is in the transcript, not stored.
      assertThat(result.toolCalls().get(0).isOmitted()).isTrue();
      RunResult whole =
          result.withMessages(kit.store.readMessages("under-1", result.messageCount()));
      assertThat(whole.toolCalls().get(0).result().get("data").asText()).hasSize(524_000);
      assertThat(result.text()).isEqualTo(answer);
    }
  }

  @Test
  void anOversizedToolResult_isStoredByReference_andTheModelStillSeesAllOfIt() throws Exception {
    List<ModelRequest> requests = new CopyOnWriteArrayList<>();
    ModelProvider script =
        Scripts.of(
            "{'turns':[{'toolCalls':[{'name':'big','arguments':{'size':524300}}]},{'text':'ok'}]}");
    ModelProvider recording =
        (request, stream) -> {
          requests.add(request);
          return script.generate(request, stream);
        };
    try (SessionTestKit kit = new SessionTestKit(dir, recording, 10)) {
      RunResult result = kit.send("big-1", "go");

      assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
      JsonNode reference = result.toolCalls().get(0).result();
      assertThat(StoredResults.isReference(reference)).as("%s", reference).isTrue();
      assertThat(reference.path("storedResult").path("bytes").asInt()).isGreaterThan(524_288);
      byte[] stored = kit.artifacts.read(StoredResults.artifactId(reference));
      assertThat(new ObjectMapper().readTree(stored).get("data").asText()).hasSize(524_300);
      // The model's second turn got the whole result, not the reference.
      Message toolMessage = requests.get(1).messages().get(2);
      assertThat(toolMessage.result().get("data").asText()).hasSize(524_300);
      // The transcript keeps the reference; no payload in the history comes near the limit.
      assertThat(kit.store.readMessages("big-1", result.messageCount()).get(2).result())
          .isEqualTo(reference);
      assertThat(kit.client.fetchHistory("big-1").getEvents())
          .allSatisfy(e -> assertThat(e.getSerializedSize()).isLessThan(64 * 1024));
      long retries =
          kit.client.fetchHistory("big-1").getEvents().stream()
              .filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
              .filter(e -> e.getActivityTaskStartedEventAttributes().getAttempt() > 1)
              .count();
      assertThat(retries).isZero();
    }
  }

  @Test
  void aRunsToolCalls_carryArgumentsAndResultsUpToTheBound_andTheTranscriptHasTheRest() {
    // Eight calls of 60,000 characters each: four fit the run result's 256 K, the rest are omitted.
    StringBuilder script = new StringBuilder("{'turns':[");
    for (int i = 0; i < 8; i++) {
      script
          .append("{'toolCalls':[{'name':'big','arguments':{'size':60000,'note':'n")
          .append(i)
          .append("'}}]},");
    }
    script.append("{'text':'ok'}]}");
    try (SessionTestKit kit = new SessionTestKit(dir, Scripts.of(script.toString()), 20)) {
      RunResult result = kit.send("many-big", "go");

      assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(result.toolCalls()).hasSize(8);
      for (int i = 0; i < 8; i++) {
        ToolCallRecord call = result.toolCalls().get(i);
        assertThat(call.name()).isEqualTo("big");
        if (i < 4) {
          assertThat(call.isOmitted()).isFalse();
          assertThat(call.result().get("data").asText()).hasSize(60_000);
        } else {
          assertThat(call.isOmitted()).as("call %d", i).isTrue();
          assertThat(call.arguments()).isNull();
          assertThat(call.result()).isNull();
        }
      }
      RunResult restored =
          result.withMessages(kit.store.readMessages("many-big", result.messageCount()));
      for (int i = 0; i < 8; i++) {
        ToolCallRecord call = restored.toolCalls().get(i);
        assertThat(call.isOmitted()).isFalse();
        assertThat(call.id()).isEqualTo(result.toolCalls().get(i).id());
        assertThat(call.arguments().get("note").asText()).isEqualTo("n" + i);
        assertThat(call.result().get("data").asText()).hasSize(60_000);
      }
    }
  }

  @Test
  void aStoredResultThatIsGone_failsTheRunWithArtifactNotFound() throws Exception {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'big','arguments':{'size':524300}}]},{'text':'ok'},"
                    + "{'text':'again'}]}"),
            10)) {
      RunResult first = kit.send("big-3", "go");
      kit.artifacts.delete(StoredResults.artifactId(first.toolCalls().get(0).result()));

      RunResult next = kit.send("big-3", "and now?");
      assertThat(next.status()).isEqualTo(RunStatus.FAILED);
      assertThat(next.error().code()).isEqualTo("artifact_not_found");
    }
  }

  @Test
  void anOversizedModelAnswer_failsTheRunWithPayloadTooLarge_withoutRetrying() {
    String huge = "y".repeat(525_000);
    try (SessionTestKit kit =
        new SessionTestKit(
            dir, ScriptedModelProvider.fromJson("{\"turns\":[{\"text\":\"" + huge + "\"}]}"), 10)) {
      RunResult result = kit.send("big-2", "go");

      assertThat(result.status()).isEqualTo(RunStatus.FAILED);
      assertThat(result.error().code()).isEqualTo("payload_too_large");
      assertThat(result.error().message()).contains("524288");
      int scheduled = 0;
      for (HistoryEvent event : kit.client.fetchHistory("big-2").getEvents()) {
        if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
            && event
                .getActivityTaskScheduledEventAttributes()
                .getActivityType()
                .getName()
                .equals("agents.ModelTurn")) {
          scheduled++;
        }
      }
      assertThat(scheduled).isEqualTo(1);
    }
  }

  @Test
  void anOversizedInput_isRefusedBeforeItReachesHistory() {
    try (SessionTestKit kit =
        new SessionTestKit(dir, Scripts.of("{'turns':[{'text':'ok'}]}"), 10)) {
      kit.send("big-3", "hello");
      assertThatThrownBy(() -> kit.send("big-3", "z".repeat(300_000)))
          .isInstanceOf(WorkflowUpdateException.class)
          .satisfies(
              e -> {
                assertThat(Rejection.from(e).type()).isEqualTo(FailureTypes.INVALID_INPUT);
                assertThat(Rejection.from(e).message()).contains("over the limit of 262144");
              });
    }
  }
}
