package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.durableagents.agent.Agent;
import io.durableagents.model.ModelProvider;
import io.durableagents.tools.ApprovalPolicy;
import io.durableagents.tools.RetryableToolException;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolContext;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.activity.IdempotencyKeys;
import io.durableagents.workflow.internal.wire.Decision;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.worker.WorkerFactoryOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/**
 * The idempotency key a tool gives its side effects: unique across sessions and forks although the
 * model's call ids repeat, and the same for one call on every attempt, on a replaying worker and
 * across continue-as-new.
 */
class IdempotencyKeyTest extends SessionKitTest {
  /** One call of a tool as the tool saw it. */
  record Seen(String sessionId, String toolCallId, int run, int attempt, String key) {}

  private final List<Seen> seen = new CopyOnWriteArrayList<>();

  private ToolContext saw(ToolContext ctx) {
    seen.add(
        new Seen(
            ctx.sessionId(), ctx.toolCallId(), ctx.run(), ctx.attempt(), ctx.idempotencyKey()));
    return ctx;
  }

  /**
   * The test agent plus {@code book} (needs approval), {@code note}, and {@code charge} (fails
   * twice).
   */
  private Agent.Builder keyedTools(Agent.Builder agent) {
    return agent
        .setMaxSteps(10)
        .addTools(
            Tool.newBuilder("book")
                .setDescription("Books a table; needs approval.")
                .setApprovalPolicy(ApprovalPolicy.ALWAYS)
                .setHandler((args, ctx) -> Map.of("booking", saw(ctx).idempotencyKey()))
                .build(),
            Tool.newBuilder("note")
                .setDescription("Notes something.")
                .setHandler((args, ctx) -> Map.of("noted", saw(ctx).idempotencyKey()))
                .build(),
            Tool.newBuilder("charge")
                .setDescription("Charges; fails transiently on its first two attempts.")
                .setMaxAttempts(5)
                .setHandler(
                    (args, ctx) -> {
                      saw(ctx);
                      if (ctx.attempt() < 3) {
                        throw new RetryableToolException("payment service busy");
                      }
                      return Map.of("charged", true);
                    })
                .build());
  }

  private SessionTestKit kit(ModelProvider model) {
    return new SessionTestKit(dir, model, this::keyedTools, WorkerFactoryOptions.newBuilder());
  }

  private List<Seen> seenIn(String sessionId) {
    return seen.stream().filter(s -> s.sessionId().equals(sessionId)).collect(Collectors.toList());
  }

  /** The session's first workflow run id, as the start event of its latest run names it. */
  private String firstRunId(String sessionId) {
    HistoryEvent started = kit.client.fetchHistory(sessionId).getEvents().get(0);
    return started.getWorkflowExecutionStartedEventAttributes().getFirstExecutionRunId();
  }

  @Test
  void twoSessions_withTheSameScriptedCallIds_getDifferentKeys() {
    kit =
        kit(
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'note','arguments':{}}]},{'text':'noted'}]}"));

    kit.send("keys-a", "note it");
    kit.send("keys-b", "note it");

    Seen a = seenIn("keys-a").get(0);
    Seen b = seenIn("keys-b").get(0);
    assertThat(a.toolCallId()).isEqualTo("call_0_0").isEqualTo(b.toolCallId());
    assertThat(a.key()).isNotEqualTo(b.key());
    assertThat(UUID.fromString(a.key()).version()).isEqualTo(8);
    assertThat(a.key())
        .isEqualTo(IdempotencyKeys.forCall("keys-a", firstRunId("keys-a"), 1, 0, "call_0_0"));
  }

  @Test
  void aRetriedCall_keepsItsKeyOnEveryAttempt_evenOnAWorkerThatReplaysEveryTask() {
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'note','arguments':{}},{'name':'charge','arguments':{}}]},"
                    + "{'toolCalls':[{'name':'note','arguments':{}}]},{'text':'done'}]}"),
            this::keyedTools,
            // No workflow cache: every task replays the history, as a restarted worker does.
            WorkerFactoryOptions.newBuilder().setWorkflowCacheSize(0));

    RunResult result = kit.send("keys-retry", "charge it");

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    List<Seen> charges =
        seenIn("keys-retry").stream().filter(s -> s.toolCallId().equals("call_0_1")).toList();
    assertThat(charges).extracting(Seen::attempt).containsExactly(1, 2, 3);
    assertThat(charges).extracting(Seen::key).containsOnly(charges.get(0).key());
    String execution = firstRunId("keys-retry");
    assertThat(seenIn("keys-retry"))
        .extracting(Seen::toolCallId, Seen::key)
        .containsOnly(
            Tuple.tuple(
                "call_0_0", IdempotencyKeys.forCall("keys-retry", execution, 1, 0, "call_0_0")),
            Tuple.tuple(
                "call_0_1", IdempotencyKeys.forCall("keys-retry", execution, 1, 1, "call_0_1")),
            Tuple.tuple(
                "call_1_0", IdempotencyKeys.forCall("keys-retry", execution, 1, 2, "call_1_0")));
  }

  @Test
  void aCallWaitingAcrossContinueAsNew_runsWithTheKeyOfTheSessionsFirstWorkflowRun()
      throws Exception {
    kit =
        kit(
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'note','arguments':{'n':1}},{'name':'book','arguments':{}},"
                    + "{'name':'note','arguments':{'n':2}}]},{'text':'booked'}]}"));
    RunResult paused = kit.send("keys-can", "book", null, 60);
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    // Ignored decisions grow the history past the bound while the approval waits.
    AtomicInteger noise = new AtomicInteger();
    await("a continue-as-new while the approval waits")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(30))
        .pollDelay(Duration.ZERO)
        .pollInSameThread()
        .until(
            () -> {
              kit.session("keys-can")
                  .decide(
                      new Decision(
                          "not-the-approval-" + noise.getAndIncrement(), true, null, "noise"));
              return kit.closedRuns("keys-can") > 0;
            });
    assertThat(kit.closedRuns("keys-can")).isGreaterThanOrEqualTo(1);

    kit.session("keys-can")
        .approve(new Decision(paused.approval().approvalId(), true, null, "ops"));
    assertThat(kit.attach("keys-can").text()).isEqualTo("booked");

    String execution = firstRunId("keys-can");
    assertThat(
            kit.client
                .fetchHistory("keys-can")
                .getEvents()
                .get(0)
                .getWorkflowExecutionStartedEventAttributes()
                .getContinuedExecutionRunId())
        .as("the calls after the approval ran in a workflow run continued from another")
        .isNotEmpty();
    // Positions 1 and 2 of the run: counted over the hand-over, as if the run had never moved.
    assertThat(seenIn("keys-can"))
        .extracting(Seen::toolCallId, Seen::key)
        .containsExactly(
            Tuple.tuple(
                "call_0_0", IdempotencyKeys.forCall("keys-can", execution, 1, 0, "call_0_0")),
            Tuple.tuple(
                "call_0_1", IdempotencyKeys.forCall("keys-can", execution, 1, 1, "call_0_1")),
            Tuple.tuple(
                "call_0_2", IdempotencyKeys.forCall("keys-can", execution, 1, 2, "call_0_2")));
  }

  @Test
  void aForkThatRunsACallAgain_givesItANewKey_andACopiedResultIsNotRunAgain() {
    kit =
        kit(
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'book','arguments':{}}]},{'text':'booked'}]}"));
    RunResult paused = kit.send("keys-src", "book");
    int pausedStep = kit.store.history("keys-src", 1).get(0).step();
    kit.session("keys-src")
        .approve(new Decision(paused.approval().approvalId(), true, null, "ops"));
    RunResult sourceDone = kit.attach("keys-src");
    assertThat(sourceDone.text()).isEqualTo("booked");
    String sourceKey = seenIn("keys-src").get(0).key();

    // From the pause: the call has no result in the entry, so the fork runs it, as a new effect.
    RunResult forked = kit.fork("keys-src", pausedStep, ForkPatch.NONE, "keys-src.fork-1");
    kit.session("keys-src.fork-1")
        .approve(new Decision(forked.approval().approvalId(), true, null, "ops"));
    assertThat(kit.attach("keys-src.fork-1").text()).isEqualTo("booked");
    Seen forkCall = seenIn("keys-src.fork-1").get(0);
    assertThat(forkCall.toolCallId()).isEqualTo("call_0_0");
    assertThat(forkCall.key()).isNotEqualTo(sourceKey);
    assertThat(forkCall.key())
        .isEqualTo(
            IdempotencyKeys.forCall(
                "keys-src.fork-1", firstRunId("keys-src.fork-1"), 1, 0, "call_0_0"));

    // From the end: the recorded result is copied, and nothing runs again.
    int before = seen.size();
    RunResult copied =
        kit.fork("keys-src", sourceDone.checkpointStep(), ForkPatch.NONE, "keys-src.fork-2");
    assertThat(copied.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(seen).hasSize(before);
  }
}
