package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.workflow.RunResult;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With a workflow cache of size 0 every workflow task replays the whole history; a replay that
 * scheduled anything again would show up as extra scheduled activities.
 */
class SideEffectTest {
  @TempDir Path dir;

  @Test
  void replayWithoutCache_schedulesEachActivityOncePerTurn() {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'add','arguments':{'a':1,'b':1}},"
                    + "{'name':'echo','arguments':{'text':'e'}}]},"
                    + "{'toolCalls':[{'name':'echo','arguments':{'text':'f'}}]},"
                    + "{'text':'done'}]}"),
            10,
            WorkerFactoryOptions.newBuilder().setWorkflowCacheSize(0))) {
      RunResult result = kit.send("cacheless-1", "go");
      assertThat(result.status()).isEqualTo(RunStatus.FINISHED);

      Map<String, Integer> scheduled = new TreeMap<>();
      int localActivities = 0;
      for (HistoryEvent event : kit.client.fetchHistory("cacheless-1").getEvents()) {
        if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
          scheduled.merge(
              event.getActivityTaskScheduledEventAttributes().getActivityType().getName(),
              1,
              Integer::sum);
        }
        if (event.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED
            && event.getMarkerRecordedEventAttributes().getMarkerName().equals("LocalActivity")) {
          localActivities++;
        }
      }
      assertThat(scheduled)
          .containsExactlyInAnyOrderEntriesOf(
              Map.of(
                  "agents.RestoreSession", 1, // the session's look-up in the store: a new one
                  "agents.ModelTurn", 3, // three model turns
                  "agents.ExecuteTool", 3)); // three tool calls
      // Two local activities: the agent's resolution at the start of the run, and one save, after
      // the final answer (the entries after the two tool-calling turns and their batches ride with
      // the next model turn). A replay that re-ran any would record another marker.
      assertThat(localActivities).isEqualTo(2);
      assertThat(kit.effects).hasSize(3);
      kit.effects.values().forEach(count -> assertThat(count.get()).isEqualTo(1));
    }
  }
}
