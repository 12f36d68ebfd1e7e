package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.workflow.RunResult;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.common.WorkflowExecutionHistory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that no Temporal payload carries the whole transcript: the history a turn adds stays the
 * same size however long the session grows.
 */
class TranscriptByReferenceTest {
  private static final int TURNS = 50;
  private static final String CANARY = "first-message-canary";
  @TempDir Path dir;

  @Test
  void historyBytesOfTurn50_areNotLargerThanTurn5ByMoreThanItsNewContent() {
    String padding = "x".repeat(400);
    StringBuilder script = new StringBuilder("{\"turns\":[");
    for (int i = 0; i < TURNS - 1; i++) {
      script.append(
          String.format(
              "{\"text\":\"turn %03d %s\",\"toolCalls\":[{\"name\":\"echo\",\"arguments\":{\"text\":\"arg %03d %s\"}}]},",
              i, padding, i, padding));
    }
    script.append("{\"text\":\"done\"}]}");
    try (SessionTestKit kit =
        new SessionTestKit(dir, ScriptedModelProvider.fromJson(script.toString()), 100)) {
      RunResult result = kit.send("long-1", CANARY + " start");
      assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(result.steps()).isEqualTo(TURNS);

      WorkflowExecutionHistory history = kit.client.fetchHistory("long-1");
      List<Long> turnBytes = bytesPerTurn(history.getEvents());
      assertThat(turnBytes).hasSize(TURNS);
      long turn5 = turnBytes.get(4);
      long turn50 = turnBytes.get(TURNS - 2); // the last turn that, like turn 5, ran a tool
      long newContentOfTurn50 =
          2L * (padding.length() + 9) + 40; // its text, its argument, its result
      assertThat(turn50 - turn5)
          .as("turn 5: %d bytes, turn 49: %d bytes", turn5, turn50)
          .isLessThanOrEqualTo(newContentOfTurn50);
      // Stronger: the growth is only a few bytes of wider numbers, not a transcript (which would
      // add its 45 earlier turns, some 36 KB). Wider: the step numbers of the turn's request and
      // saves, its step records' step and call position; the events' timestamps (protobuf varints)
      // vary by a few bytes from run to run on top.
      assertThat(turn50).isLessThan(turn5 + 96);

      // The first message is in the send update, the first model request and the turn that held
      // its entry (whose worker writes it later): never again, however many turns follow.
      int seen = 0;
      for (HistoryEvent event : history.getEvents()) {
        seen += occurrences(new String(event.toByteArray(), StandardCharsets.UTF_8), CANARY);
      }
      assertThat(seen).isEqualTo(3);

      // The worker kept the transcript it sent: after the first turn, no turn read the store.
      assertThat(kit.storeCalls.get("readMessages")).hasValue(1);
    }
  }

  /** Bytes of history from one model-turn schedule to the next. */
  private static List<Long> bytesPerTurn(List<HistoryEvent> events) {
    List<Long> turns = new ArrayList<>();
    long current = -1;
    for (HistoryEvent event : events) {
      boolean modelTurn =
          event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
              && event
                  .getActivityTaskScheduledEventAttributes()
                  .getActivityType()
                  .getName()
                  .equals("agents.ModelTurn");
      if (modelTurn) {
        if (current >= 0) {
          turns.add(current);
        }
        current = 0;
      }
      if (current >= 0) {
        current += event.getSerializedSize();
      }
    }
    turns.add(current);
    return turns;
  }

  private static int occurrences(String text, String needle) {
    int count = 0;
    for (int at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
      count++;
    }
    return count;
  }
}
