package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.Decision;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Lossless continue-as-new: long sessions keep everything across workflow runs. */
class ContinueAsNewTest extends SessionKitTest {
  private static String toolTurns(int turns, String last) {
    StringBuilder script = new StringBuilder("{\"turns\":[");
    for (int i = 0; i < turns; i++) {
      script
          .append("{\"text\":\"t")
          .append(i)
          .append("\",\"toolCalls\":[{\"name\":\"echo\",\"arguments\":{\"text\":\"")
          .append(i)
          .append("\"}}]},");
    }
    return script.append(last).append("]}").toString();
  }

  private long closedRuns(String sessionId) {
    return kit.closedRuns(sessionId);
  }

  @Test
  void aSessionOf1000Turns_continuesAsNewSeveralTimes_andKeepsEveryMessage() {
    int turns = 1000;
    kit =
        new SessionTestKit(
            dir, ScriptedModelProvider.fromJson(toolTurns(turns, "{\"text\":\"done\"}")), 2000);

    RunResult result = kit.send("long-1", "go", null, 2000);

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(result.text()).isEqualTo("done");
    assertThat(result.steps()).isEqualTo(turns + 1);
    assertThat(result.toolCalls()).hasSize(turns);
    assertThat(closedRuns("long-1"))
        .as("workflow runs closed by continue-as-new")
        .isGreaterThanOrEqualTo(5);
    List<Message> transcript = kit.store.readMessages("long-1", result.messageCount());
    assertThat(transcript).hasSize(1 + 2 * turns + 1);
    for (int i = 0; i < turns; i++) {
      assertThat(transcript.get(1 + 2 * i).text()).isEqualTo("t" + i);
      assertThat(transcript.get(2 + 2 * i).result().get("echo").asText())
          .isEqualTo(String.valueOf(i));
    }
    assertThat(kit.effects).hasSize(turns);
    kit.effects.values().forEach(count -> assertThat(count.get()).isEqualTo(1));
  }

  @Test
  void anApprovalPendingAcrossContinueAsNew_isDecidedAfterIt_withTheSameId() throws Exception {
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'echo','arguments':{'text':'a'}},"
                    + "{'name':'pay','arguments':{'amount':900}},{'name':'echo','arguments':{'text':'b'}}]},"
                    + "{'text':'paid'}]}"),
            10);
    RunResult paused = kit.send("can-approval", "pay", null, 60);
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
              kit.session("can-approval")
                  .decide(
                      new Decision(
                          "not-the-approval-" + noise.getAndIncrement(), true, null, "noise"));
              return closedRuns("can-approval") > 0;
            });
    assertThat(closedRuns("can-approval")).isGreaterThanOrEqualTo(1);
    assertThat(kit.session("can-approval").status().approval().approvalId())
        .isEqualTo(paused.approval().approvalId());

    kit.session("can-approval")
        .approve(new Decision(paused.approval().approvalId(), true, null, "ops"));
    RunResult done = kit.attach("can-approval");

    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.text()).isEqualTo("paid");
    assertThat(done.toolCalls())
        .extracting(r -> r.id())
        .containsExactly("call_0_0", "call_0_1", "call_0_2");
    assertThat(done.toolCalls().get(1).result().get("paid").asInt()).isEqualTo(900);
    assertThat(kit.effects).containsOnlyKeys("call_0_0", "call_0_1", "call_0_2");
    kit.effects.values().forEach(count -> assertThat(count.get()).isEqualTo(1));
  }

  @Test
  void aResentStartMessageAfterContinueAsNew_isStillARetry() throws Exception {
    kit =
        new SessionTestKit(
            dir,
            ScriptedModelProvider.fromJson(
                "{\"turns\":[{\"toolCalls\":[{\"name\":\"slow\",\"arguments\":{\"ms\":300}}]},"
                    + "{\"toolCalls\":[{\"name\":\"slow\",\"arguments\":{\"ms\":300}}]},"
                    + "{\"toolCalls\":[{\"name\":\"slow\",\"arguments\":{\"ms\":300}}]},"
                    + "{\"toolCalls\":[{\"name\":\"slow\",\"arguments\":{\"ms\":2500}}]},{\"text\":\"end\"}]}"),
            10);
    CompletableFuture<RunResult> first =
        CompletableFuture.supplyAsync(() -> kit.send("can-retry", "the request", null, 25));
    await("the last slow call started, in a run continued from another")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> kit.effects.containsKey("call_3_0"));
    assertThat(closedRuns("can-retry")).isGreaterThanOrEqualTo(1);

    RunResult retried = kit.send("can-retry", "the request", null, 25);

    assertThat(retried.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(first.get(2, java.util.concurrent.TimeUnit.MINUTES).run()).isEqualTo(retried.run());
    assertThat(kit.store.readMessages("can-retry", retried.messageCount()))
        .filteredOn(m -> m.role() == Role.USER)
        .extracting(Message::text)
        .containsExactly("the request");
  }

  /**
   * A message that arrives in the workflow task in which the session must continue as new: the run
   * starts and continues as new before its first model turn. Its input is saved first, or the next
   * workflow run (which carries the transcript by reference) would never see it.
   */
  @Test
  void aSendArrivingWhenTheSessionMustContinueAsNew_keepsItsInput() throws Exception {
    int eventLimit = 200;
    kit =
        new SessionTestKit(
            dir, Scripts.of("{'turns':[{'text':'first answer'},{'text':'second answer'}]}"), 10);
    assertThat(kit.send("can-input", "first", null, eventLimit).text()).isEqualTo("first answer");

    kit.worker.suspendPolling();
    // Polls already waiting on the server still take a task each: feed them ignored decisions.
    for (int i = 0; i < 6; i++) {
      kit.session("can-input")
          .decide(new Decision("no-such-approval", true, null, "absorb a poll"));
      Thread.sleep(200);
    }
    // With no worker polling, these grow the history past the bound before any task sees it...
    long events = kit.client.fetchHistory("can-input").getEvents().size();
    for (long i = events; i <= eventLimit; i++) {
      kit.session("can-input")
          .decide(new Decision("no-such-approval", true, null, "grow the history"));
    }
    assertThat(closedRuns("can-input")).isZero();
    // ...so the task that takes the second message must also continue as new.
    CompletableFuture<RunResult> second =
        CompletableFuture.supplyAsync(() -> kit.send("can-input", "second"));
    Thread.sleep(500);
    kit.worker.resumePolling();

    RunResult result = second.get(1, java.util.concurrent.TimeUnit.MINUTES);
    assertThat(closedRuns("can-input")).isGreaterThanOrEqualTo(1);
    assertThat(result.text()).isEqualTo("second answer");
    assertThat(kit.store.readMessages("can-input", result.messageCount()))
        .extracting(Message::text)
        .containsExactly("first", "first answer", "second", "second answer");
  }
}
