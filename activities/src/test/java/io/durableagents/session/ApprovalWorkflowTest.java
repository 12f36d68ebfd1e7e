package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.agent.Execution;
import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.session.internal.ApprovalRecord;
import io.durableagents.workflow.DecisionOutcome;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.ToolCallRecord;
import io.durableagents.workflow.internal.wire.Decision;
import io.durableagents.workflow.internal.wire.Rejection;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowUpdateException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Approvals in the middle of a tool batch, with time skipping for the waits. */
class ApprovalWorkflowTest extends SessionKitTest {
  private static final String GATED_MIDDLE =
      "{'turns':[{'text':'paying','toolCalls':["
          + "{'name':'echo','arguments':{'text':'before'}},"
          + "{'name':'pay','arguments':{'amount':500}},"
          + "{'name':'echo','arguments':{'text':'after'}}]},"
          + "{'text':'all done'},{'text':'next answer'}]}";

  private RunResult startPaused(String sessionId, Execution mode) {
    kit = new SessionTestKit(dir, Scripts.of(GATED_MIDDLE), 10, mode);
    RunResult paused = kit.send(sessionId, "pay the bill");
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    assertThat(paused.finishReason()).isEqualTo(FinishReason.AWAITING_APPROVAL);
    assertThat(paused.approval().toolName()).isEqualTo("pay");
    assertThat(paused.approval().toolCallId()).isEqualTo("call_0_1");
    assertThat(paused.approval().input().get("amount").asInt()).isEqualTo(500);
    assertThat(paused.approval().expiresAt() - paused.approval().requestedAt())
        .isEqualTo(Duration.ofHours(1).toMillis());
    return paused;
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Execution.class)
  void gatedMiddleCall_firstRunsBeforeThePause_thirdAfterTheDecision_resultsInCallOrder(
      Execution mode) {
    RunResult paused = startPaused("mid-1", mode);
    // Before the decision: only the first call ran, and its result is already recorded.
    assertThat(kit.effects).containsOnlyKeys("call_0_0");
    assertThat(paused.toolCalls()).extracting(ToolCallRecord::id).containsExactly("call_0_0");
    assertThat(kit.store.approvals("mid-1", true))
        .singleElement()
        .satisfies(
            a -> assertThat(a.approval().approvalId()).isEqualTo(paused.approval().approvalId()));

    DecisionOutcome outcome =
        kit.session("mid-1")
            .approve(new Decision(paused.approval().approvalId(), true, "ok", "alice"));
    assertThat(outcome.outcome()).isEqualTo(ApprovalStatus.APPROVED);
    RunResult done = kit.attach("mid-1");

    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.text()).isEqualTo("all done");
    assertThat(done.toolCalls())
        .extracting(ToolCallRecord::id)
        .containsExactly("call_0_0", "call_0_1", "call_0_2");
    assertThat(done.toolCalls().get(1).result().get("paid").asInt()).isEqualTo(500);
    assertThat(kit.effects).containsOnlyKeys("call_0_0", "call_0_1", "call_0_2");
    List<Message> transcript = kit.store.readMessages("mid-1", done.messageCount());
    assertThat(transcript)
        .extracting(Message::role)
        .containsExactly(
            Role.USER, Role.ASSISTANT, Role.TOOL, Role.TOOL, Role.TOOL, Role.ASSISTANT);
    assertThat(transcript.subList(2, 5))
        .extracting(Message::toolCallId)
        .containsExactly("call_0_0", "call_0_1", "call_0_2");
    ApprovalRecord row = kit.store.approvals("mid-1", false).get(0);
    assertThat(row.status()).isEqualTo(ApprovalStatus.APPROVED);
    assertThat(row.decidedBy()).isEqualTo("alice");
    assertThat(row.note()).isEqualTo("ok");
    assertThat(kit.store.approvals(null, true)).isEmpty();
  }

  @org.junit.jupiter.api.Test
  void anApprovedCall_startsTogetherWithItsDecisionsSave_notAfterIt() {
    RunResult paused = startPaused("alongside-1", Execution.ACTIVITY);
    int before = kit.client.fetchHistory("alongside-1").getEvents().size();
    kit.session("alongside-1")
        .approve(new Decision(paused.approval().approvalId(), true, "ok", "alice"));
    assertThat(kit.attach("alongside-1").status()).isEqualTo(RunStatus.FINISHED);

    List<HistoryEvent> after = kit.client.fetchHistory("alongside-1").getEvents();
    after = after.subList(before, after.size());
    HistoryEvent payScheduled = scheduled(after, "agents.ExecuteTool", 0);
    HistoryEvent saveScheduled = scheduled(after, "agents.SaveCheckpoint", 0);
    // Both commands of the workflow task that took the decision; no local-activity save before.
    assertThat(
            payScheduled
                .getActivityTaskScheduledEventAttributes()
                .getWorkflowTaskCompletedEventId())
        .isEqualTo(
            saveScheduled
                .getActivityTaskScheduledEventAttributes()
                .getWorkflowTaskCompletedEventId());
    assertThat(
            after.stream()
                .filter(HistoryEvent::hasMarkerRecordedEventAttributes)
                .filter(e -> e.getEventId() < payScheduled.getEventId())
                .filter(
                    e -> !e.getMarkerRecordedEventAttributes().getMarkerName().equals("Version")))
        .isEmpty();
    // The decision still landed on the entry that asked for it.
    ApprovalRecord row = kit.store.approvals("alongside-1", false).get(0);
    assertThat(row.status()).isEqualTo(ApprovalStatus.APPROVED);
    assertThat(kit.store.history("alongside-1", 0))
        .filteredOn(entry -> entry.step() == row.step())
        .singleElement()
        .satisfies(entry -> assertThat(entry.status()).isEqualTo(RunStatus.IN_PROGRESS));
  }

  @org.junit.jupiter.api.Test
  void theStatusOfAPausedSession_showsThePausedRunAsItsLastResult_andTheProjectionHasItsMessages() {
    RunResult paused = startPaused("status-1", Execution.ACTIVITY);

    SessionStatus status = kit.session("status-1").status();

    assertThat(status.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    RunResult last = status.lastResult();
    assertThat(last).as("the paused run, as its send was answered").isNotNull();
    assertThat(last.run()).isEqualTo(1);
    assertThat(last.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    assertThat(last.finishReason()).isEqualTo(FinishReason.AWAITING_APPROVAL);
    assertThat(last.approval().approvalId()).isEqualTo(paused.approval().approvalId());
    assertThat(last.toolCalls()).extracting(ToolCallRecord::id).containsExactly("call_0_0");
    assertThat(last.messageCount()).isEqualTo(paused.messageCount());
    assertThat(last.checkpointStep()).isEqualTo(paused.checkpointStep());
    assertThat(last.messages()).as("the query never holds the transcript").isNull();
    // The messages it counts are in the projection, where a client reads them.
    List<Message> transcript = kit.store.readMessages("status-1", last.messageCount());
    assertThat(transcript).hasSize(last.messageCount());
    assertThat(transcript.get(0).text()).isEqualTo("pay the bill");
    assertThat(transcript.get(1).role()).isEqualTo(Role.ASSISTANT);

    kit.session("status-1")
        .approve(new Decision(paused.approval().approvalId(), true, "ok", "alice"));
    RunResult done = kit.attach("status-1");
    assertThat(kit.session("status-1").status().lastResult()).isEqualTo(done);
  }

  private static HistoryEvent scheduled(List<HistoryEvent> events, String activityType, int nth) {
    return events.stream()
        .filter(HistoryEvent::hasActivityTaskScheduledEventAttributes)
        .filter(
            e ->
                e.getActivityTaskScheduledEventAttributes()
                    .getActivityType()
                    .getName()
                    .equals(activityType))
        .skip(nth)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + activityType + " scheduled"));
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Execution.class)
  void rejectedBySignal_givesTheRejectionResultInOrder_andTheToolNeverRuns(Execution mode)
      throws Exception {
    RunResult paused = startPaused("rej-1", mode);

    kit.session("rej-1")
        .decide(new Decision(paused.approval().approvalId(), false, "too much", "bob"));
    awaitDecisionApplied("rej-1");
    RunResult done = kit.attach("rej-1");

    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    JsonNode rejected = done.toolCalls().get(1).result();
    assertThat(rejected.get("error").asText()).isEqualTo("rejected");
    assertThat(rejected.get("note").asText()).isEqualTo("too much");
    assertThat(kit.effects).containsOnlyKeys("call_0_0", "call_0_2");
    assertThat(kit.store.approvals("rej-1", false).get(0).status())
        .isEqualTo(ApprovalStatus.REJECTED);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Execution.class)
  void noDecisionBeforeExpiry_givesApprovalExpired(Execution mode) {
    RunResult paused = startPaused("exp-1", mode);

    kit.env.sleep(Duration.ofHours(2));
    RunResult done = kit.attach("exp-1");

    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.toolCalls().get(1).result().get("error").asText())
        .isEqualTo("approval_expired");
    assertThat(kit.effects).containsOnlyKeys("call_0_0", "call_0_2");
    assertThat(kit.store.approvals("exp-1", false).get(0).status())
        .isEqualTo(ApprovalStatus.EXPIRED);
    // A decision after the expiry is ignored, and the update variant refuses it.
    kit.session("exp-1").decide(new Decision(paused.approval().approvalId(), true, null, "late"));
    assertThatThrownBy(
            () ->
                kit.session("exp-1")
                    .approve(new Decision(paused.approval().approvalId(), true, null, "late")))
        .isInstanceOf(WorkflowUpdateException.class)
        .satisfies(
            e -> assertThat(rejection(e).type()).isEqualTo(FailureTypes.APPROVAL_ALREADY_DECIDED));
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Execution.class)
  void approvalWaitOfDays_isADurableTimerAndCostsNothing(Execution mode) {
    kit = new SessionTestKit(dir, Scripts.of(GATED_MIDDLE), 10, mode);
    RunResult paused = kit.send("days-1", "pay the bill");
    kit.env.sleep(Duration.ofMinutes(59));
    assertThat(kit.session("days-1").status().status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    kit.session("days-1").decide(new Decision(paused.approval().approvalId(), true, null, "carol"));
    assertThat(kit.attach("days-1").status()).isEqualTo(RunStatus.FINISHED);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Execution.class)
  void twoGatedCallsInOneBatch_pauseTwiceWithTwoApprovalIds(Execution mode) {
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'pay','arguments':{'amount':200}},"
                    + "{'name':'pay','arguments':{'amount':300}}]},{'text':'paid both'}]}"),
            10,
            mode);
    RunResult first = kit.send("two-1", "pay twice");
    assertThat(first.approval().toolCallId()).isEqualTo("call_0_0");
    kit.session("two-1").approve(new Decision(first.approval().approvalId(), true, null, "a"));

    RunResult second = kit.attach("two-1");
    assertThat(second.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    assertThat(second.approval().toolCallId()).isEqualTo("call_0_1");
    assertThat(second.approval().approvalId()).isNotEqualTo(first.approval().approvalId());
    assertThat(second.toolCalls()).extracting(ToolCallRecord::id).containsExactly("call_0_0");

    kit.session("two-1").approve(new Decision(second.approval().approvalId(), false, "no", "a"));
    RunResult done = kit.attach("two-1");
    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.toolCalls().get(0).result().get("paid").asInt()).isEqualTo(200);
    assertThat(done.toolCalls().get(1).result().get("error").asText()).isEqualTo("rejected");
    assertThat(kit.store.approvals("two-1", false))
        .extracting(ApprovalRecord::status)
        .containsExactly(ApprovalStatus.APPROVED, ApprovalStatus.REJECTED);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Execution.class)
  void argumentDependentPolicy_smallAmountsRunWithoutApproval(Execution mode) {
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'pay','arguments':{'amount':20}}]},{'text':'ok'}]}"),
            10,
            mode);
    RunResult done = kit.send("small-1", "pay a little");
    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.toolCalls().get(0).result().get("paid").asInt()).isEqualTo(20);
    assertThat(kit.store.approvals("small-1", false)).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Execution.class)
  void theRunsOwnInputSentAgainWhilePaused_isARetry_answeredWithThePause(Execution mode) {
    RunResult paused = startPaused("retry-1", mode);

    // A client whose first send was lost (its worker killed) sends it again after the run paused.
    RunResult again = kit.send("retry-1", "pay the bill");

    assertThat(again.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    assertThat(again.run()).isEqualTo(paused.run());
    assertThat(again.approval().approvalId()).isEqualTo(paused.approval().approvalId());
    assertThat(kit.store.session("retry-1").orElseThrow().messageCount())
        .isEqualTo(paused.messageCount());
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Execution.class)
  void sendWhilePaused_isRefusedWithTheApprovalId_andNothingReachesHistory(Execution mode) {
    RunResult paused = startPaused("busy-1", mode);
    int eventsBefore = kit.client.fetchHistory("busy-1").getEvents().size();

    assertThatThrownBy(() -> kit.send("busy-1", "are you done?"))
        .isInstanceOf(WorkflowUpdateException.class)
        .satisfies(
            e -> {
              Rejection rejection = rejection(e);
              assertThat(rejection.type()).isEqualTo(FailureTypes.SESSION_AWAITING_APPROVAL);
              assertThat(rejection.details())
                  .containsExactly("busy-1", paused.approval().approvalId());
            });

    // The validator refused it: no update was accepted, nothing was scheduled. (The test server
    // keeps the workflow task that ran the validator; a real server drops that speculative task.)
    List<HistoryEvent> events = kit.client.fetchHistory("busy-1").getEvents();
    assertThat(events.subList(eventsBefore, events.size()))
        .extracting(HistoryEvent::getEventType)
        .allMatch(type -> type.name().startsWith("EVENT_TYPE_WORKFLOW_TASK_"));
    assertThat(events).noneMatch(e -> e.toString().contains("are you done?"));
    assertThat(kit.store.session("busy-1").orElseThrow().messageCount())
        .isEqualTo(paused.messageCount());
    // An empty send attaches and reports the pause.
    assertThat(kit.attach("busy-1").approval().approvalId())
        .isEqualTo(paused.approval().approvalId());
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Execution.class)
  void unknownOrDuplicateDecisions_areIgnoredBySignal_andRefusedByUpdate(Execution mode)
      throws Exception {
    RunResult paused = startPaused("odd-1", mode);

    kit.session("odd-1").decide(new Decision("no-such-approval", true, null, "mallory"));
    assertThat(kit.session("odd-1").status().status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    assertThatThrownBy(
            () -> kit.session("odd-1").approve(new Decision("no-such-approval", true, null, "m")))
        .isInstanceOf(WorkflowUpdateException.class)
        .satisfies(e -> assertThat(rejection(e).type()).isEqualTo(FailureTypes.UNKNOWN_APPROVAL));

    kit.session("odd-1").decide(new Decision(paused.approval().approvalId(), true, null, "dave"));
    kit.session("odd-1").decide(new Decision(paused.approval().approvalId(), false, null, "dup"));
    awaitDecisionApplied("odd-1");
    RunResult done = kit.attach("odd-1");
    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.toolCalls().get(1).result().get("paid").asInt()).isEqualTo(500);
    assertThat(kit.store.approvals("odd-1", false).get(0).decidedBy()).isEqualTo("dave");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Execution.class)
  void afterAnApproval_theNextSendContinuesTheConversation(Execution mode) {
    RunResult paused = startPaused("next-1", mode);
    kit.session("next-1").approve(new Decision(paused.approval().approvalId(), true, null, "x"));
    kit.attach("next-1");

    RunResult next = kit.send("next-1", "thanks");
    assertThat(next.run()).isEqualTo(2);
    assertThat(next.text()).isEqualTo("next answer");
    assertThat(next.steps()).isEqualTo(1);
  }

  /**
   * A signal is asynchronous: wait until the session has applied it before attaching, or the attach
   * may legitimately still see the pause.
   */
  private void awaitDecisionApplied(String sessionId) {
    await("the decision on %s applied".formatted(sessionId))
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(20))
        .untilAsserted(() -> assertThat(kit.session(sessionId).status().approval()).isNull());
  }

  /** The refusal the workflow raised, out of the client's exception chain. */
  static Rejection rejection(Throwable thrown) {
    Rejection rejection = Rejection.from(thrown);
    assertThat(rejection).as("rejection in %s", thrown).isNotNull();
    return rejection;
  }
}
