package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.agent.Execution;
import io.durableagents.store.CheckpointEntry;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.RunStatus;
import io.durableagents.workflow.activity.ModelTurnRequest;
import io.durableagents.workflow.internal.AgentSessionWorkflowImpl;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.failure.v1.Failure;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.MarkerRecordedEventAttributes;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Local model turns hold the entries folded into them: the store is written once every few steps
 * and by every other save, and a turn on a worker that lacks the transcript they continue has the
 * workflow write them first. Either way the projection ends with every entry, and nothing runs
 * twice.
 */
class HeldSavesTest extends SessionKitTest {
  private static final String SIX_TOOL_TURNS =
      "{'turns':["
          + "{'toolCalls':[{'name':'echo','arguments':{'text':'1'}}]},"
          + "{'toolCalls':[{'name':'echo','arguments':{'text':'2'}}]},"
          + "{'toolCalls':[{'name':'echo','arguments':{'text':'3'}}]},"
          + "{'toolCalls':[{'name':'echo','arguments':{'text':'4'}}]},"
          + "{'toolCalls':[{'name':'echo','arguments':{'text':'5'}}]},"
          + "{'toolCalls':[{'name':'echo','arguments':{'text':'6'}}]},"
          + "{'text':'done'}]}";

  /** As in {@link ExecutionModeSwitchTest}: the test server never moves work off a sticky queue. */
  private static final WorkerOptions NOT_STICKY =
      WorkerOptions.newBuilder().setStickyQueueScheduleToStartTimeout(Duration.ZERO).build();

  @Test
  void localTurnsHoldTheirEntries_andTwoWritesStoreAllThirteen() {
    kit = new SessionTestKit(dir, Scripts.of(SIX_TOOL_TURNS), 20, Execution.LOCAL_ACTIVITY);

    RunResult result = kit.send("held-1", "go");

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(result.text()).isEqualTo("done");
    // Turns 2 to 5 hold the eight entries of steps 1 to 8; turn 6 would hold ten, so it writes
    // steps 1 to 10; turn 7 holds steps 11 and 12; the final save writes those and step 13.
    assertThat(kit.storeCalls.get("saveCheckpoints")).hasValue(2);
    assertThat(kit.storeCalls).doesNotContainKey("saveCheckpoint");
    assertThat(heldTurns("held-1")).isEqualTo(5);
    // Every entry is stored: two per tool-calling turn and the answer's.
    assertThat(kit.store.history("held-1", 100))
        .extracting(CheckpointEntry::step)
        .containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13);
    assertThat(kit.store.readMessages("held-1", result.messageCount())).hasSize(result.messageCount());
    assertThat(kit.effects).hasSize(6).allSatisfy((call, count) -> assertThat(count.get()).isEqualTo(1));
  }

  @Test
  void aTurnOnAWorkerThatLacksTheHeldTranscript_writesWhatWasHeld_andTheRunGoesOn() throws Exception {
    String script =
        "{'turns':["
            + "{'toolCalls':[{'name':'echo','arguments':{'text':'a'}}]},"
            + "{'toolCalls':[{'name':'slow','arguments':{'ms':3000}}]},"
            + "{'toolCalls':[{'name':'echo','arguments':{'text':'b'}}]},"
            + "{'text':'done'}]}";
    // A local model with tools as activities: each call ends a workflow task, so the next turn
    // can run on another worker while entries are held.
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(script),
            agent -> agent.maxSteps(10).modelExecution(Execution.LOCAL_ACTIVITY),
            WorkerFactoryOptions.newBuilder(),
            Execution.ACTIVITY,
            NOT_STICKY);

    CompletableFuture<RunResult> run = CompletableFuture.supplyAsync(() -> kit.send("held-2", "go"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (kit.effects.size() < 2 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(kit.effects).as("echo done and slow started").hasSize(2);
    // A deploy while the slow call runs: the next turn runs on a worker with an empty cache.
    kit.redeploy(Execution.ACTIVITY);
    RunResult result = run.get(60, TimeUnit.SECONDS);

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(result.text()).isEqualTo("done");
    assertThat(failedTurns("held-2")).containsExactly(ModelTurnRequest.HELD_SAVES_UNKNOWN);
    assertThat(kit.store.history("held-2", 100))
        .extracting(CheckpointEntry::step)
        .containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6, 7);
    assertThat(kit.store.readMessages("held-2", result.messageCount())).hasSize(result.messageCount());
    assertThat(kit.effects).hasSize(3).allSatisfy((call, count) -> assertThat(count.get()).isEqualTo(1));
    WorkflowReplayer.replayWorkflowExecution(kit.client.fetchHistory("held-2"), AgentSessionWorkflowImpl.class);
  }

  /** Model turns whose request held its saves, from the local activity markers' inputs. */
  private long heldTurns(String sessionId) {
    return modelTurnMarkers(sessionId).stream()
        .filter(marker -> marker.getDetailsOrThrow("input").getPayloads(0).getData().toStringUtf8()
            .contains("\"holdSaves\":true"))
        .count();
  }

  /** The failure types of the model turns that failed, in order. */
  private List<String> failedTurns(String sessionId) {
    return modelTurnMarkers(sessionId).stream()
        .filter(MarkerRecordedEventAttributes::hasFailure)
        .map(marker -> applicationFailureType(marker.getFailure()))
        .toList();
  }

  private static String applicationFailureType(Failure failure) {
    for (Failure f = failure; f != null; f = f.hasCause() ? f.getCause() : null) {
      if (f.hasApplicationFailureInfo()) {
        return f.getApplicationFailureInfo().getType();
      }
    }
    return "(no application failure) " + failure.getMessage();
  }

  private List<MarkerRecordedEventAttributes> modelTurnMarkers(String sessionId) {
    return kit.client.fetchHistory(sessionId).getEvents().stream()
        .filter(event -> event.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED)
        .map(HistoryEvent::getMarkerRecordedEventAttributes)
        .filter(marker -> marker.containsDetails("type")
            && marker.getDetailsOrThrow("type").getPayloads(0).getData().toStringUtf8().contains("ModelTurn"))
        .toList();
  }
}
