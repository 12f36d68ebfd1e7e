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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Model turns hold the entries folded into them while steps are fast: the store is written once
 * every few steps and by every other save. A turn after a slow step writes instead, and so does
 * every turn of a run after one found a worker without the transcript. Either way the projection
 * ends with every entry, and nothing runs twice. Each test runs with the model turn as an
 * activity and as a local activity.
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

  @ParameterizedTest
  @EnumSource(Execution.class)
  void fastTurnsHoldTheirEntries_andTwoWritesStoreAllThirteen(Execution mode) {
    kit = new SessionTestKit(dir, Scripts.of(SIX_TOOL_TURNS), 20, mode);

    RunResult result = kit.send("held-1", "go");

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(result.text()).isEqualTo("done");
    // Turns 2 to 5 hold the eight entries of steps 1 to 8; turn 6 would hold ten, so it writes
    // steps 1 to 10; turn 7 holds steps 11 and 12; the final save writes those and step 13.
    assertThat(kit.storeCalls.get("saveCheckpoints")).hasValue(2);
    assertThat(kit.storeCalls).doesNotContainKey("saveCheckpoint");
    assertThat(heldTurns("held-1")).containsExactly(false, true, true, true, true, false, true);
    // Every entry is stored: two per tool-calling turn and the answer's.
    assertThat(kit.store.history("held-1", 100))
        .extracting(CheckpointEntry::step)
        .containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13);
    assertThat(kit.store.readMessages("held-1", result.messageCount())).hasSize(result.messageCount());
    assertThat(kit.effects).hasSize(6).allSatisfy((call, count) -> assertThat(count.get()).isEqualTo(1));
  }

  @ParameterizedTest
  @EnumSource(Execution.class)
  void theTurnAfterASlowStepWrites_soADeployDuringThatStepCostsNoRetry(Execution modelMode) throws Exception {
    String script =
        "{'turns':["
            + "{'toolCalls':[{'name':'echo','arguments':{'text':'a'}}]},"
            + "{'toolCalls':[{'name':'slow','arguments':{'ms':2500}}]},"
            + "{'toolCalls':[{'name':'echo','arguments':{'text':'b'}}]},"
            + "{'text':'done'}]}";
    // Tools as activities: each call ends a workflow task, so the next turn can run on another
    // worker while entries are held.
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(script),
            agent -> agent.maxSteps(10).modelExecution(modelMode),
            WorkerFactoryOptions.newBuilder(),
            Execution.ACTIVITY,
            NOT_STICKY);

    CompletableFuture<RunResult> run = CompletableFuture.supplyAsync(() -> kit.send("held-2", "go"));
    awaitEffects(2); // echo done and slow started
    // A deploy while the slow call runs: the next turn runs on a worker with an empty cache.
    kit.redeploy(Execution.ACTIVITY);
    RunResult result = run.get(60, TimeUnit.SECONDS);

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(result.text()).isEqualTo("done");
    // Turn 2 holds steps 1-2; the slow step makes them older than a second, so turn 3 writes
    // steps 1-4 and needs no transcript; turn 4 holds steps 5-6 again.
    assertThat(heldTurns("held-2")).containsExactly(false, true, false, true);
    assertThat(failedTurns("held-2")).isEmpty();
    assertThat(kit.storeCalls.get("saveCheckpoints")).hasValue(2);
    assertThat(kit.store.history("held-2", 100))
        .extracting(CheckpointEntry::step)
        .containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6, 7);
    assertThat(kit.store.readMessages("held-2", result.messageCount())).hasSize(result.messageCount());
    assertThat(kit.effects).hasSize(3).allSatisfy((call, count) -> assertThat(count.get()).isEqualTo(1));
    WorkflowReplayer.replayWorkflowExecution(kit.client.fetchHistory("held-2"), AgentSessionWorkflowImpl.class);
  }

  @ParameterizedTest
  @EnumSource(Execution.class)
  void aTurnOnAWorkerWithoutTheTranscript_writesWhatWasHeld_andTheRestOfTheRunWritesEveryTurn(Execution mode)
      throws Exception {
    kit = new SessionTestKit(dir, Scripts.of(SIX_TOOL_TURNS), 20, mode);
    // Workers that keep no transcript: like turns that land on another worker each time.
    kit.redeployKeepingTranscripts(0);

    RunResult result = kit.send("held-3", "go");

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(result.text()).isEqualTo("done");
    // Turn 2 holds and fails at once; sent again, it writes steps 1-2, as does every later turn.
    assertThat(failedTurns("held-3")).containsExactly(ModelTurnRequest.HELD_SAVES_UNKNOWN);
    assertThat(heldTurns("held-3")).containsExactly(false, true, false, false, false, false, false, false);
    assertThat(kit.store.history("held-3", 100))
        .extracting(CheckpointEntry::step)
        .containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13);
    assertThat(kit.store.readMessages("held-3", result.messageCount())).hasSize(result.messageCount());
    assertThat(kit.effects).hasSize(6).allSatisfy((call, count) -> assertThat(count.get()).isEqualTo(1));
    WorkflowReplayer.replayWorkflowExecution(kit.client.fetchHistory("held-3"), AgentSessionWorkflowImpl.class);
  }

  private void awaitEffects(int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (kit.effects.size() < count && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(kit.effects).hasSize(count);
  }

  /** For each model turn sent (attempts that failed at once included), whether it held its saves. */
  private List<Boolean> heldTurns(String sessionId) {
    return modelTurnInputs(sessionId).stream().map(input -> input.contains("\"holdSaves\":true")).toList();
  }

  /** The inputs of the model turns, in order: from local activity markers or scheduled activities. */
  private List<String> modelTurnInputs(String sessionId) {
    List<String> inputs = new ArrayList<>();
    for (HistoryEvent event : kit.client.fetchHistory(sessionId).getEvents()) {
      if (event.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED) {
        MarkerRecordedEventAttributes marker = event.getMarkerRecordedEventAttributes();
        if (isModelTurn(marker)) {
          inputs.add(marker.getDetailsOrThrow("input").getPayloads(0).getData().toStringUtf8());
        }
      } else if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
          && event.getActivityTaskScheduledEventAttributes().getActivityType().getName().equals("agents.ModelTurn")) {
        inputs.add(event.getActivityTaskScheduledEventAttributes().getInput().getPayloads(0).getData().toStringUtf8());
      }
    }
    return inputs;
  }

  /** The failure types of the model turns that failed, in order. */
  private List<String> failedTurns(String sessionId) {
    List<String> failures = new ArrayList<>();
    Set<Long> scheduledTurns = new HashSet<>();
    for (HistoryEvent event : kit.client.fetchHistory(sessionId).getEvents()) {
      switch (event.getEventType()) {
        case EVENT_TYPE_MARKER_RECORDED -> {
          MarkerRecordedEventAttributes marker = event.getMarkerRecordedEventAttributes();
          if (isModelTurn(marker) && marker.hasFailure()) {
            failures.add(applicationFailureType(marker.getFailure()));
          }
        }
        case EVENT_TYPE_ACTIVITY_TASK_SCHEDULED -> {
          if (event.getActivityTaskScheduledEventAttributes().getActivityType().getName().equals("agents.ModelTurn")) {
            scheduledTurns.add(event.getEventId());
          }
        }
        case EVENT_TYPE_ACTIVITY_TASK_FAILED -> {
          if (scheduledTurns.contains(event.getActivityTaskFailedEventAttributes().getScheduledEventId())) {
            failures.add(applicationFailureType(event.getActivityTaskFailedEventAttributes().getFailure()));
          }
        }
        default -> {}
      }
    }
    return failures;
  }

  private static boolean isModelTurn(MarkerRecordedEventAttributes marker) {
    return marker.containsDetails("type")
        && marker.getDetailsOrThrow("type").getPayloads(0).getData().toStringUtf8().contains("ModelTurn");
  }

  private static String applicationFailureType(Failure failure) {
    for (Failure f = failure; f != null; f = f.hasCause() ? f.getCause() : null) {
      if (f.hasApplicationFailureInfo()) {
        return f.getApplicationFailureInfo().getType();
      }
    }
    return "(no application failure) " + failure.getMessage();
  }
}
