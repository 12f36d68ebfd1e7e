package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.projection.internal.StoredEntry;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.ToolCallRecord;
import io.temporal.worker.WorkerFactoryOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A run's budgets hold across what splits it: a fork continues its entry's run with the tokens and
 * model turns that run had used, and a run that continues as new keeps what is left of its
 * runTimeout.
 */
class BudgetContinuationTest extends SessionKitTest {
  /** Six tool turns of 100 tokens each (call ids call_0_0 .. call_5_0), then an answer. */
  private static final String HUNDRED_TOKEN_TURNS =
      "{'turns':["
          + "{'toolCalls':[{'name':'echo','arguments':{'text':'x'}}],'usage':{'inputTokens':80,'outputTokens':20}},"
              .repeat(6)
          + "{'text':'end'}]}";

  /** A first tool turn slow enough to send into the run while it works, then echo turns. */
  private static final String SLOW_THEN_ECHOES =
      "{'turns':[{'toolCalls':[{'name':'slow','arguments':{'ms':1500}}]},"
          + "{'toolCalls':[{'name':'echo','arguments':{'text':'x'}}]},".repeat(6)
          + "{'text':'end'}]}";

  private StoredEntry entry(String sessionId, int step) {
    return kit.store.history(sessionId, 0).stream()
        .filter(e -> e.step() == step)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no entry at step " + step + " of " + sessionId));
  }

  private static long assistants(List<Message> transcript) {
    return transcript.stream().filter(m -> m.role() == Role.ASSISTANT).count();
  }

  /**
   * The fork continues its entry's run with the 200 tokens that run had used of its 250: one more
   * model turn (300) and the budget is spent.
   *
   * <p>Before the change the fork's run started with a fresh token budget (usage 0; only the 2
   * steps were carried): it would have taken three more model turns (100, 200, 300), ending with
   * steps 5, three tool calls (call_2_0, call_3_0, call_4_0) and 5 assistant messages.
   */
  @Test
  void aFork_continuesWithTheTokensItsRunHadUsed() {
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(HUNDRED_TOKEN_TURNS),
            a -> a.setMaxSteps(20).setMaxTokens(250),
            WorkerFactoryOptions.newBuilder());
    RunResult source = kit.send("fork-tokens", "go");
    assertThat(source.finishReason()).isEqualTo(FinishReason.MAX_TOKENS);
    assertThat(source.steps()).isEqualTo(3);

    // Step 1: turn 1, step 2: its result, step 3: turn 2, step 4: its result (run still going).
    StoredEntry afterSecondTurn = entry("fork-tokens", 4);
    assertThat(afterSecondTurn.status()).isEqualTo(RunStatus.IN_PROGRESS);
    assertThat(afterSecondTurn.runSteps()).isEqualTo(2);
    assertThat(afterSecondTurn.runUsage().total()).isEqualTo(200);

    RunResult forked =
        kit.fork(
            "fork-tokens",
            4,
            ForkPatch.newBuilder().setAppendInput("and one more").build(),
            "fork-tokens.fork-1");

    assertThat(forked.run()).isEqualTo(1); // the entry's run, continued
    assertThat(forked.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(forked.finishReason()).isEqualTo(FinishReason.MAX_TOKENS);
    assertThat(forked.steps()).isEqualTo(3); // 2 of the entry's run plus the fork's one
    assertThat(forked.usage().total()).isEqualTo(300);
    assertThat(forked.usage().inputTokens()).isEqualTo(240);
    assertThat(forked.usage().outputTokens()).isEqualTo(60);
    assertThat(forked.toolCalls()).extracting(ToolCallRecord::id).containsExactly("call_2_0");
    List<Message> transcript = kit.store.readMessages("fork-tokens.fork-1", forked.messageCount());
    assertThat(transcript)
        .extracting(Message::role)
        .containsExactly(
            Role.USER,
            Role.ASSISTANT,
            Role.TOOL,
            Role.ASSISTANT,
            Role.TOOL,
            Role.USER,
            Role.ASSISTANT,
            Role.TOOL);
    assertThat(kit.session("fork-tokens.fork-1").status().usage().total()).isEqualTo(300);
    StoredEntry last = kit.store.history("fork-tokens.fork-1", 1).get(0);
    assertThat(last.finishReason()).isEqualTo(FinishReason.MAX_TOKENS);
    assertThat(last.runSteps()).isEqualTo(3);
    assertThat(last.runUsage().total()).isEqualTo(300);
  }

  /**
   * A message interjected into a run does not reset the count of its model turns: a fork from a
   * later entry of that run has only maxSteps minus the turns the run took left.
   *
   * <p>Before the change the steps used were counted as the assistant messages since the last user
   * message: the interjection came after turn 1, so the entry after turn 3 counted 2, and the fork
   * would have taken three more turns (call_3_0, call_4_0, call_5_0) instead of two.
   */
  @Test
  void aFork_afterAnInterjectedMessage_hasOnlyTheRunsRemainingStepsLeft() throws Exception {
    int maxSteps = 5;
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(SLOW_THEN_ECHOES),
            a -> a.setMaxSteps(maxSteps),
            WorkerFactoryOptions.newBuilder());
    CompletableFuture<RunResult> first =
        CompletableFuture.supplyAsync(() -> kit.send("fork-steps", "start"));
    await("the slow call started")
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(20))
        .untilAsserted(() -> assertThat(kit.effects).containsKey("call_0_0"));

    RunResult interjected = kit.send("fork-steps", "and mind this");
    RunResult source = first.get(2, TimeUnit.MINUTES);

    assertThat(interjected).isEqualTo(source);
    assertThat(source.run()).isEqualTo(1);
    assertThat(source.finishReason()).isEqualTo(FinishReason.MAX_STEPS);
    assertThat(source.steps()).isEqualTo(maxSteps);
    List<Message> sourceTranscript = kit.store.readMessages("fork-steps", source.messageCount());
    assertThat(sourceTranscript.get(3).role()).isEqualTo(Role.USER);
    assertThat(sourceTranscript.get(3).text()).isEqualTo("and mind this");

    // Step 5: turn 3 (the second after the interjection); step 6: its result, the run going on.
    StoredEntry afterThirdTurn = entry("fork-steps", 6);
    assertThat(afterThirdTurn.run()).isEqualTo(1);
    assertThat(afterThirdTurn.status()).isEqualTo(RunStatus.IN_PROGRESS);
    assertThat(afterThirdTurn.runSteps()).isEqualTo(3);
    List<Message> atEntry = kit.store.readMessages("fork-steps", afterThirdTurn.messageCount());
    assertThat(assistants(atEntry)).isEqualTo(3);
    assertThat(atEntry.get(atEntry.size() - 1).role()).isEqualTo(Role.TOOL);

    RunResult forked = kit.fork("fork-steps", 6, ForkPatch.NONE, "fork-steps.fork-1");

    assertThat(forked.run()).isEqualTo(1);
    assertThat(forked.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(forked.finishReason()).isEqualTo(FinishReason.MAX_STEPS);
    assertThat(forked.steps()).isEqualTo(maxSteps);
    // maxSteps - 3 = 2 model turns of the fork's own.
    assertThat(forked.toolCalls())
        .extracting(ToolCallRecord::id)
        .containsExactly("call_3_0", "call_4_0");
    List<Message> forkTranscript =
        kit.store.readMessages("fork-steps.fork-1", forked.messageCount());
    assertThat(forkTranscript).hasSize(atEntry.size() + 4);
    assertThat(assistants(forkTranscript)).isEqualTo(maxSteps);
    assertThat(kit.effects).doesNotContainKey("call_5_0");
  }

  /** The run's wall-clock budget. */
  private static final Duration RUN_TIMEOUT = Duration.ofSeconds(2);

  /** Tool turns of the long run: together 15 x 500 ms = 7.5 s, well over 3 x the timeout. */
  private static final int SLOW_TURNS = 15;

  private static final long SLOW_MS = 500;

  /**
   * Events one workflow run may have: a fresh run starts with fewer, and one model turn with its
   * tool batch goes past it, so the session continues as new before every model turn but a run's
   * first: each workflow run lasts about one slow turn, well under the timeout.
   */
  private static final int EVENTS_PER_RUN = 12;

  /**
   * A run that continues as new mid-run keeps what is left of its runTimeout: after about 2 s of
   * slow tool turns, over several workflow runs, it fails with run_timeout.
   *
   * <p>Before the change each workflow run armed the full timeout again: every run timer in the
   * history would be of 2 s (asserted below: the one that fires, in a continued workflow run, is of
   * less), and since every workflow run lasts about one 500 ms turn, none would ever have fired:
   * the run would have finished all 15 tool turns and answered "done" (status FINISHED, finish
   * reason stop, 16 steps).
   */
  @Test
  void aRunThatContinuesAsNew_keepsTheRestOfItsRunTimeout() {
    StringBuilder script = new StringBuilder("{'turns':[");
    for (int i = 0; i < SLOW_TURNS; i++) {
      script.append("{'toolCalls':[{'name':'slow','arguments':{'ms':" + SLOW_MS + "}}]},");
    }
    script.append("{'text':'done'}]}");
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(script.toString()),
            a -> a.setMaxSteps(50).setRunTimeout(RUN_TIMEOUT),
            WorkerFactoryOptions.newBuilder());
    // A first session of one turn loads the workflow, activity and continue-as-new code, so the
    // measured session's first workflow run is as short as its others.
    RunResult warmUp = kit.send("can-warm-up", "go", 1, EVENTS_PER_RUN);
    assertThat(warmUp.finishReason()).isEqualTo(FinishReason.MAX_STEPS);

    long startedAt = System.nanoTime();
    RunResult result = kit.send("can-timeout", "go", null, EVENTS_PER_RUN);
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedAt);

    assertThat(result.run()).isEqualTo(1);
    assertThat(result.status()).isEqualTo(RunStatus.FAILED);
    assertThat(result.finishReason()).isEqualTo(FinishReason.TIMEOUT);
    assertThat(result.error().code()).isEqualTo("run_timeout");
    // Each turn takes at least 500 ms of tool time: within the 2 s budget (plus the moments
    // between workflow runs, which are not counted) at most about 5 turns start, far fewer than
    // the script's 16.
    assertThat(result.steps()).isBetween(1, 6).isLessThan(SLOW_TURNS + 1);
    assertThat(elapsedMs)
        .as("wall time to the timeout")
        .isGreaterThanOrEqualTo(RUN_TIMEOUT.toMillis());
    assertThat(kit.closedRuns("can-timeout")).isGreaterThanOrEqualTo(1);

    // The session's workflow runs, each with the run timers it started and whether one fired.
    List<WorkflowRun> runs = workflowRuns("can-timeout");
    WorkflowRun first =
        runs.stream().filter(r -> !r.continued()).findFirst().orElseThrow(AssertionError::new);
    assertThat(first.timersMs()).first().isEqualTo(RUN_TIMEOUT.toMillis());
    assertThat(first.timerFired()).as("the timer fired in the first workflow run").isFalse();
    List<WorkflowRun> fired = runs.stream().filter(WorkflowRun::timerFired).toList();
    assertThat(fired).as("workflow runs in which the run timer fired").hasSize(1);
    // It fired in a workflow run continued from another, armed for what the runs before had left.
    assertThat(fired.get(0).continued()).isTrue();
    assertThat(fired.get(0).timersMs()).hasSize(1);
    assertThat(fired.get(0).timersMs().get(0)).isPositive().isLessThan(RUN_TIMEOUT.toMillis());
    // Every timer armed after the first run's was for less than the full timeout.
    assertThat(
            runs.stream()
                .filter(WorkflowRun::continued)
                .flatMap(r -> r.timersMs().stream())
                .toList())
        .isNotEmpty()
        .allSatisfy(ms -> assertThat(ms).isLessThan(RUN_TIMEOUT.toMillis()));
  }

  private static boolean isIdleTimer(io.temporal.api.history.v1.HistoryEvent timer) {
    return timer.getTimerStartedEventAttributes().getStartToFireTimeout().getSeconds() * 1000
        == io.durableagents.workflow.internal.activity.AgentSpec.DEFAULT_IDLE_TIMEOUT_MS;
  }

  /** A workflow run of a session: whether it continued another, its timers, whether one fired. */
  private record WorkflowRun(boolean continued, List<Long> timersMs, boolean timerFired) {}

  private List<WorkflowRun> workflowRuns(String sessionId) {
    io.temporal.api.workflowservice.v1.WorkflowServiceGrpc.WorkflowServiceBlockingStub service =
        kit.env.getWorkflowServiceStubs().blockingStub();
    List<io.temporal.api.workflow.v1.WorkflowExecutionInfo> executions =
        new java.util.ArrayList<>(
            service
                .listClosedWorkflowExecutions(
                    io.temporal.api.workflowservice.v1.ListClosedWorkflowExecutionsRequest
                        .newBuilder()
                        .setNamespace("default")
                        .build())
                .getExecutionsList());
    executions.addAll(
        service
            .listOpenWorkflowExecutions(
                io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest.newBuilder()
                    .setNamespace("default")
                    .build())
            .getExecutionsList());
    return executions.stream()
        .filter(e -> e.getExecution().getWorkflowId().equals(sessionId))
        .map(
            e -> {
              List<io.temporal.api.history.v1.HistoryEvent> events =
                  kit.client.fetchHistory(sessionId, e.getExecution().getRunId()).getEvents();
              boolean continued =
                  !events
                      .get(0)
                      .getWorkflowExecutionStartedEventAttributes()
                      .getContinuedExecutionRunId()
                      .isEmpty();
              List<Long> timers =
                  events.stream()
                      .filter(
                          io.temporal.api.history.v1.HistoryEvent::hasTimerStartedEventAttributes)
                      // The session's idle timer between runs is no run timer.
                      .filter(t -> !isIdleTimer(t))
                      .map(
                          t -> {
                            com.google.protobuf.Duration d =
                                t.getTimerStartedEventAttributes().getStartToFireTimeout();
                            return d.getSeconds() * 1000 + d.getNanos() / 1_000_000;
                          })
                      .toList();
              boolean timerFired =
                  events.stream()
                      .anyMatch(
                          io.temporal.api.history.v1.HistoryEvent::hasTimerFiredEventAttributes);
              return new WorkflowRun(continued, timers, timerFired);
            })
        .toList();
  }
}
