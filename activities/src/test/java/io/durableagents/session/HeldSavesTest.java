package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.durableagents.agent.Execution;
import io.durableagents.projection.internal.StoredEntry;
import io.durableagents.store.internal.ProjectionRebuilder;
import io.durableagents.testing.ModelTurnInputs;
import io.durableagents.testing.TestReplayer;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.AgentSessionWorkflowImpl;
import io.temporal.api.failure.v1.Failure;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.MarkerRecordedEventAttributes;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Model turns hold the entries folded into them while steps are fast: the store is written once
 * every few steps, by the worker that held them (nothing restated), and by every other save. A turn
 * after a slow step writes instead, and so does every turn of a run after one found a worker
 * without the transcript or the held entries. Either way the projection ends with every entry, and
 * nothing runs twice. Each test runs with the model turn as an activity and as a local activity.
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
    // Turns 2 to 5 hold the eight entries of steps 1 to 8; turn 6 would hold ten, so its worker
    // writes them with steps 9 and 10; turn 7 holds steps 11 and 12; the final save writes those
    // and step 13.
    assertThat(kit.storeCalls.get("saveCheckpoints")).hasValue(2);
    assertThat(kit.storeCalls).doesNotContainKey("saveCheckpoint");
    assertThat(turnKinds("held-1")).isEqualTo("WHHHHRH");
    // Nothing written by reference is restated: steps 1 to 10 travel once each.
    assertThat(timesCarried("held-1"))
        .containsEntry(1, 1)
        .containsEntry(8, 1)
        .containsEntry(9, 1)
        .containsEntry(10, 1)
        .containsEntry(11, 2)
        .containsEntry(13, 1);
    // Every entry is stored: two per tool-calling turn and the answer's.
    assertThat(kit.store.history("held-1", 100))
        .extracting(StoredEntry::step)
        .containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13);
    assertThat(kit.store.readMessages("held-1", result.messageCount()))
        .hasSize(result.messageCount());
    assertThat(kit.effects)
        .hasSize(6)
        .allSatisfy((call, count) -> assertThat(count.get()).isEqualTo(1));
  }

  @ParameterizedTest
  @EnumSource(Execution.class)
  void theTurnAfterASlowStep_hasItsWorkerWriteTheHeldEntries(Execution modelMode) throws Exception {
    kit = slowStepKit(modelMode);

    RunResult result = kit.send("held-2", "go");

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    // Turn 2 holds steps 1-2; the slow step makes them older than a second, so turn 3's worker,
    // which held them, writes them with steps 3-4; turn 4 holds steps 5-6 again.
    assertThat(turnKinds("held-2")).isEqualTo("WHRH");
    assertThat(failedTurns("held-2")).isEmpty();
    assertThat(kit.storeCalls.get("saveCheckpoints")).hasValue(2);
    assertAllStored("held-2", result, 7);
    assertThat(kit.effects)
        .hasSize(3)
        .allSatisfy((call, count) -> assertThat(count.get()).isEqualTo(1));
  }

  @ParameterizedTest
  @EnumSource(Execution.class)
  void aDeployDuringASlowStep_runsItAgain_costsTheNextTurnOneRetry_andLosesNothing(
      Execution modelMode) throws Exception {
    kit = slowStepKit(modelMode);

    CompletableFuture<RunResult> run =
        CompletableFuture.supplyAsync(() -> kit.send("held-3", "go"));
    awaitEffects(2); // echo done and slow started
    // A deploy while the slow call runs: the next turn runs on a worker that held nothing.
    kit.redeploy(Execution.ACTIVITY);
    RunResult result = run.get(60, TimeUnit.SECONDS);

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    // Turn 3 asks its worker to write the held steps 1-2: it fails at once, and is sent again
    // restating them; the rest of the run writes every turn.
    assertThat(turnKinds("held-3")).isEqualTo("WHRWW");
    assertThat(failedTurns("held-3")).containsExactly(FailureTypes.HELD_SAVES_UNKNOWN);
    assertAllStored("held-3", result, 7);
    // The old worker's shutdown cancelled the slow call, which stopped (it sleeps, so the
    // interrupt ends it) and ran again on the new worker; the others ran once.
    assertThat(kit.effects).hasSize(3);
    assertThat(kit.effects.get("call_1_0")).hasValue(2);
    assertThat(kit.effects)
        .allSatisfy(
            (call, count) -> {
              if (!call.equals("call_1_0")) {
                assertThat(count.get()).isEqualTo(1);
              }
            });
    TestReplayer.replay(kit.client.fetchHistory("held-3"), AgentSessionWorkflowImpl.class);
  }

  /** Echo, a 2.5 s step, echo, answer; tools as activities: each call ends a workflow task. */
  private SessionTestKit slowStepKit(Execution modelMode) {
    String script =
        "{'turns':["
            + "{'toolCalls':[{'name':'echo','arguments':{'text':'a'}}]},"
            + "{'toolCalls':[{'name':'slow','arguments':{'ms':2500}}]},"
            + "{'toolCalls':[{'name':'echo','arguments':{'text':'b'}}]},"
            + "{'text':'done'}]}";
    return new SessionTestKit(
        dir,
        Scripts.of(script),
        agent -> agent.setMaxSteps(10).setModelExecution(modelMode),
        WorkerFactoryOptions.newBuilder(),
        Execution.ACTIVITY,
        NOT_STICKY);
  }

  private void assertAllStored(String sessionId, RunResult result, int entries) {
    assertThat(kit.store.history(sessionId, 100))
        .extracting(StoredEntry::step)
        .containsExactlyInAnyOrderElementsOf(
            java.util.stream.IntStream.rangeClosed(1, entries).boxed().toList());
    assertThat(kit.store.readMessages(sessionId, result.messageCount()))
        .hasSize(result.messageCount());
  }

  @ParameterizedTest
  @EnumSource(Execution.class)
  void aTurnOnAWorkerWithoutTheTranscript_writesWhatWasHeld_andTheRestOfTheRunWritesEveryTurn(
      Execution mode) throws Exception {
    kit = new SessionTestKit(dir, Scripts.of(SIX_TOOL_TURNS), 20, mode);
    // Workers that keep no transcript: like turns that land on another worker each time.
    kit.redeployKeepingTranscripts(0);

    RunResult result = kit.send("held-4", "go");

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(result.text()).isEqualTo("done");
    // Turn 2 holds and fails at once; sent again, it writes steps 1-2, as does every later turn.
    assertThat(failedTurns("held-4")).containsExactly(FailureTypes.HELD_SAVES_UNKNOWN);
    assertThat(turnKinds("held-4")).isEqualTo("WHWWWWWW");
    assertAllStored("held-4", result, 13);
    assertThat(kit.effects)
        .hasSize(6)
        .allSatisfy((call, count) -> assertThat(count.get()).isEqualTo(1));
    TestReplayer.replay(kit.client.fetchHistory("held-4"), AgentSessionWorkflowImpl.class);
  }

  private void awaitEffects(int count) {
    await("%d tool calls started".formatted(count))
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> kit.effects.size() >= count);
    assertThat(kit.effects).hasSize(count);
  }

  /**
   * One letter per model turn sent (attempts that failed at once included): H held its entries, R
   * had its worker write the held ones (by reference), W wrote everything it carried.
   */
  private String turnKinds(String sessionId) {
    StringBuilder kinds = new StringBuilder();
    for (String input : ModelTurnInputs.of(kit.client.fetchHistory(sessionId).getEvents())) {
      kinds.append(
          input.contains("\"kind\":\"writeHeld\"")
              ? 'R'
              : input.contains("\"kind\":\"hold\"") ? 'H' : 'W');
    }
    return kinds.toString();
  }

  /** How many times each step's entry travels in the history: in model turns and saves. */
  private Map<Integer, Integer> timesCarried(String sessionId) {
    Map<Integer, Integer> times = new TreeMap<>();
    ProjectionRebuilder.newInstance()
        .saves(List.of(kit.client.fetchHistory(sessionId)))
        .forEach(save -> times.merge(save.step(), 1, Integer::sum));
    return times;
  }

  /** The failure types of the model turns that failed, in order. */
  private List<String> failedTurns(String sessionId) {
    List<String> failures = new ArrayList<>();
    Set<Long> scheduledTurns = new HashSet<>();
    for (HistoryEvent event : kit.client.fetchHistory(sessionId).getEvents()) {
      switch (event.getEventType()) {
        case EVENT_TYPE_MARKER_RECORDED -> {
          MarkerRecordedEventAttributes marker = event.getMarkerRecordedEventAttributes();
          if (ModelTurnInputs.isLocalModelTurn(marker) && marker.hasFailure()) {
            failures.add(applicationFailureType(marker.getFailure()));
          }
        }
        case EVENT_TYPE_ACTIVITY_TASK_SCHEDULED -> {
          if (event
              .getActivityTaskScheduledEventAttributes()
              .getActivityType()
              .getName()
              .equals("agents.ModelTurn")) {
            scheduledTurns.add(event.getEventId());
          }
        }
        case EVENT_TYPE_ACTIVITY_TASK_FAILED -> {
          if (scheduledTurns.contains(
              event.getActivityTaskFailedEventAttributes().getScheduledEventId())) {
            failures.add(
                applicationFailureType(event.getActivityTaskFailedEventAttributes().getFailure()));
          }
        }
        default -> {}
      }
    }
    return failures;
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
