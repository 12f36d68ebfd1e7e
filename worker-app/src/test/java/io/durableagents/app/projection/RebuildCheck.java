package io.durableagents.app.projection;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.store.ProjectionTables;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.store.internal.ProjectionRebuilder;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The projection ITs' proof that a fault lost, duplicated or reordered nothing: a session's live
 * projection equals, row for row, one rebuilt from its workflow history into a fresh database; its
 * transcript has no gap and exactly one result per tool call; its history entries have no gap and
 * are those the history saved.
 */
final class RebuildCheck {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * What was checked of one session: its live rows, the saves and workflow runs of its history, and
   * the assistant messages and tool results of its transcript.
   */
  record Checked(
      ProjectionTables live,
      List<CheckpointSave> saves,
      List<WorkflowExecutionHistory> runs,
      int assistantMessages,
      int toolResults) {

    /** Activity attempts after the first, of any activity of the session (failed ones retried). */
    int retriedAttempts() {
      int retried = 0;
      for (WorkflowExecutionHistory run : runs) {
        for (HistoryEvent event : run.getEvents()) {
          if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
              && event.getActivityTaskStartedEventAttributes().getAttempt() > 1) {
            retried += event.getActivityTaskStartedEventAttributes().getAttempt() - 1;
          }
        }
      }
      return retried;
    }

    /** Milliseconds of workflow time from the first save of the session to its last. */
    long saveSpanMillis() {
      return saves.get(saves.size() - 1).savedAt() - saves.get(0).savedAt();
    }
  }

  private RebuildCheck() {}

  /**
   * Rebuilds session {@code id} from its workflow history into {@code rebuilt} (the store of {@code
   * rebuiltUrl}), asserts that its rows there equal those at {@code liveUrl}, and checks the live
   * transcript and entries against {@code result}, the session's last run, settled.
   */
  static Checked check(
      WorkflowClient client,
      String id,
      RunResult result,
      String liveUrl,
      CheckpointStore rebuilt,
      String rebuiltUrl)
      throws IOException {
    List<WorkflowExecutionHistory> runs = ProjectionRebuilder.fetchRuns(client, id);
    ProjectionRebuilder rebuilder = ProjectionRebuilder.newInstance();
    List<CheckpointSave> saves = rebuilder.saves(runs);
    rebuilder.rebuild(id, runs, rebuilt);

    ProjectionTables live = ProjectionTables.read(liveUrl, id);
    assertThat(ProjectionTables.read(rebuiltUrl, id))
        .as("rebuilt projection of %s", id)
        .isEqualTo(live);
    int[] counts = checkTranscript(id, live, result);
    checkEntries(id, live, saves, result);
    return new Checked(live, saves, runs, counts[0], counts[1]);
  }

  /**
   * Messages 0..n-1 without a gap, as many as the run counted; one result per tool call, none
   * twice; the session row settled like the run. Answers the assistant messages and the tool
   * results.
   */
  private static int[] checkTranscript(String id, ProjectionTables live, RunResult result)
      throws IOException {
    List<List<Object>> messages = live.messages();
    assertThat(messages).as("messages of %s", id).hasSize(result.messageCount());
    Set<String> calls = new HashSet<>();
    List<String> results = new ArrayList<>();
    int assistants = 0;
    for (int seq = 0; seq < messages.size(); seq++) {
      List<Object> row = messages.get(seq);
      assertThat(row.get(0)).as("seq of message %d of %s", seq, id).isEqualTo((long) seq);
      JsonNode body = JSON.readTree((String) row.get(4));
      assertThat(body.path("role").asText()).isEqualTo(row.get(3));
      if ("assistant".equals(row.get(3))) {
        assistants++;
        body.path("toolCalls")
            .forEach(call -> assertThat(calls.add(call.path("id").asText())).isTrue());
      } else if ("tool".equals(row.get(3))) {
        results.add(body.path("toolCallId").asText());
      }
    }
    assertThat(results).as("tool results of %s", id).doesNotHaveDuplicates();
    assertThat(new HashSet<>(results)).as("answered calls of %s", id).isEqualTo(calls);
    List<Object> session = live.sessions().get(0);
    assertThat(session.get(3)).as("status of %s", id).isEqualTo(result.status().value());
    assertThat(session.get(6)).isEqualTo((long) messages.size());
    return new int[] {assistants, results.size()};
  }

  /**
   * One entry per saved step, steps without a gap, the newest one holding the whole transcript and
   * settled like the run.
   */
  private static void checkEntries(
      String id, ProjectionTables live, List<CheckpointSave> saves, RunResult result) {
    TreeSet<Long> savedSteps = new TreeSet<>();
    saves.forEach(save -> savedSteps.add((long) save.step()));
    List<Long> steps = live.checkpoints().stream().map(row -> (Long) row.get(0)).toList();
    assertThat(steps).as("checkpoint steps of %s", id).containsExactlyElementsOf(savedSteps);
    assertThat(steps.get(steps.size() - 1) - steps.get(0) + 1)
        .as("gapless steps of %s", id)
        .isEqualTo(steps.size());
    List<Object> newest = live.checkpoints().get(live.checkpoints().size() - 1);
    assertThat(newest.get(4)).isEqualTo((long) live.messages().size());
    assertThat(newest.get(2)).isEqualTo(result.status().value());
  }
}
