package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.durableagents.conversation.Message;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionSearchAttributes;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.internal.wire.CloseRequest;
import io.durableagents.workflow.internal.wire.Rejection;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowUpdateException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Sessions with an end of life: a close completes the workflow after its run, an idle session
 * closes itself after its agent's idle timeout, and a send to a closed session starts it again
 * under the same id from its last entry.
 */
class SessionLifecycleTest extends SessionKitTest {
  private static final String ANSWERS =
      "{'turns':[{'text':'one'},{'text':'two'},{'text':'three'}]}";

  private static final String GATED =
      "{'turns':[{'text':'paying','toolCalls':[{'name':'pay','arguments':{'amount':500}}]},"
          + "{'text':'paid'},{'text':'later'}]}";

  @Test
  void close_completesTheWorkflow_andASendStartsItAgain_withItsTranscriptAndRunNumbers() {
    kit = new SessionTestKit(dir, Scripts.of(ANSWERS), 10);
    RunResult first = kit.send("life-1", "hello");
    String firstRunId = runId("life-1");

    SessionStatus closed = kit.session("life-1").close(CloseRequest.close(false));

    assertThat(closed.lifecycle()).isEqualTo(SessionLifecycle.CLOSED);
    assertThat(closed.run()).isEqualTo(1);
    assertThat(workflowStatus("life-1"))
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
    assertThat(kit.store.session("life-1").orElseThrow().closedAt()).isNotNull();
    // A closed session still answers its status query, as closed.
    assertThat(kit.session("life-1").status().lifecycle()).isEqualTo(SessionLifecycle.CLOSED);

    RunResult again = kit.send("life-1", "and again");

    assertThat(runId("life-1")).isNotEqualTo(firstRunId);
    assertThat(again.run()).isEqualTo(first.run() + 1);
    assertThat(again.text()).isEqualTo("two");
    assertThat(again.checkpointStep()).isGreaterThan(first.checkpointStep());
    assertThat(again.messageCount()).isEqualTo(4);
    assertThat(kit.store.readMessages("life-1", 4))
        .extracting(Message::text)
        .containsExactly("hello", "one", "and again", "two");
    assertThat(kit.store.session("life-1").orElseThrow().closedAt()).isNull();
    assertThat(kit.session("life-1").status().lifecycle()).isEqualTo(SessionLifecycle.OPEN);
  }

  @Test
  void anIdleSession_closesItselfAfterItsAgentsIdleTimeout_withOneTimerPerIdlePeriod() {
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(ANSWERS),
            agent -> agent.setMaxSteps(10).setIdleTimeout(Duration.ofHours(1)),
            io.temporal.worker.WorkerFactoryOptions.newBuilder());
    kit.send("idle-1", "hello");
    kit.send("idle-1", "still there?");

    kit.env.sleep(Duration.ofMinutes(59));
    assertThat(workflowStatus("idle-1"))
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
    kit.env.sleep(Duration.ofMinutes(2));

    assertThat(workflowStatus("idle-1"))
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
    assertThat(kit.store.session("idle-1").orElseThrow().closedAt()).isNotNull();
    // Two idle periods (after each run), one timer each; the first was cancelled by the send.
    List<HistoryEvent> events = history("idle-1");
    assertThat(count(events, EventType.EVENT_TYPE_TIMER_STARTED)).isEqualTo(2);
    assertThat(count(events, EventType.EVENT_TYPE_TIMER_CANCELED)).isEqualTo(1);
    assertThat(count(events, EventType.EVENT_TYPE_TIMER_FIRED)).isEqualTo(1);
    assertThat(kit.session("idle-1").status().lifecycle()).isEqualTo(SessionLifecycle.CLOSED);

    RunResult again = kit.send("idle-1", "back");
    assertThat(again.run()).isEqualTo(3);
    assertThat(again.text()).isEqualTo("three");
  }

  @Test
  void closeWithAPendingApproval_needsForce_andForceCancelsTheRunAndSettlesTheApproval() {
    kit = new SessionTestKit(dir, Scripts.of(GATED), 10);
    RunResult paused = kit.send("gated-1", "pay the bill");
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);

    assertThatThrownBy(() -> kit.session("gated-1").close(CloseRequest.close(false)))
        .isInstanceOf(WorkflowUpdateException.class)
        .satisfies(
            e -> assertThat(Rejection.from(e).type()).isEqualTo(FailureTypes.CLOSE_NEEDS_FORCE));
    assertThat(workflowStatus("gated-1"))
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
    assertThat(kit.store.approvals("gated-1", true)).hasSize(1);

    SessionStatus closed = kit.session("gated-1").close(CloseRequest.close(true));

    assertThat(closed.lifecycle()).isEqualTo(SessionLifecycle.CLOSED);
    assertThat(closed.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(kit.store.approvals("gated-1", true)).isEmpty();
    assertThat(kit.store.approvals("gated-1", false))
        .singleElement()
        .satisfies(a -> assertThat(a.status()).isEqualTo(ApprovalStatus.CANCELLED));
    assertThat(kit.effects).isEmpty();
  }

  @Test
  void aSendWhileClosing_isRefusedNotDropped_andTakenOnceTheSessionStartsAgain() throws Exception {
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'slow','arguments':{'ms':3000}}]},"
                    + "{'text':'after'},{'text':'again'}]}"),
            10);
    CompletableFuture<RunResult> run =
        CompletableFuture.supplyAsync(() -> kit.send("closing-1", "go"));
    await("the slow call started")
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> kit.effects.containsKey("call_0_0"));
    CompletableFuture<SessionStatus> close =
        CompletableFuture.supplyAsync(
            () -> kit.session("closing-1").close(CloseRequest.close(false)));
    await("the close was accepted")
        .atMost(Duration.ofSeconds(10))
        .until(() -> kit.session("closing-1").status().lifecycle() == SessionLifecycle.CLOSING);

    assertThatThrownBy(() -> kit.send("closing-1", "one more"))
        .isInstanceOf(WorkflowUpdateException.class)
        .satisfies(
            e -> assertThat(Rejection.from(e).type()).isEqualTo(FailureTypes.SESSION_CLOSING));

    // The run in progress finishes, then the session closes.
    assertThat(run.get(1, TimeUnit.MINUTES).text()).isEqualTo("after");
    assertThat(close.get(1, TimeUnit.MINUTES).lifecycle()).isEqualTo(SessionLifecycle.CLOSED);
    RunResult again = kit.send("closing-1", "one more");
    assertThat(again.run()).isEqualTo(2);
    assertThat(kit.store.readMessages("closing-1", again.messageCount()))
        .extracting(Message::text)
        .containsOnlyOnce("one more");
  }

  @Test
  void aCloseThatDeletes_removesTheProjectionRows() {
    kit = new SessionTestKit(dir, Scripts.of(ANSWERS), 10);
    kit.send("gone-1", "hello");

    SessionStatus deleted = kit.session("gone-1").close(CloseRequest.delete(false, false));

    assertThat(deleted.lifecycle()).isEqualTo(SessionLifecycle.DELETED);

    assertThat(workflowStatus("gone-1"))
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
    assertThat(kit.store.session("gone-1")).isEmpty();
    assertThat(kit.store.history("gone-1", 0)).isEmpty();
  }

  @Test
  void theClosedSessionShowsAsClosedInItsSearchAttribute() {
    kit = new SessionTestKit(dir, Scripts.of(ANSWERS), 10);
    kit.registerSearchAttributes(io.durableagents.plugin.SearchAttributeUpserts.ALWAYS);
    kit.send("shown-1", "hello");

    kit.session("shown-1").close(CloseRequest.close(false));

    assertThat(
            kit.client
                .newUntypedWorkflowStub("shown-1")
                .describe()
                .getTypedSearchAttributes()
                .get(SessionSearchAttributes.AGENT_STATUS))
        .isEqualTo(SessionSearchAttributes.CLOSED);
  }

  private String runId(String sessionId) {
    return kit.client.newUntypedWorkflowStub(sessionId).describe().getExecution().getRunId();
  }

  private WorkflowExecutionStatus workflowStatus(String sessionId) {
    return kit.client.newUntypedWorkflowStub(sessionId).describe().getStatus();
  }

  private List<HistoryEvent> history(String sessionId) {
    return kit.client.fetchHistory(sessionId).getHistory().getEventsList();
  }

  private static long count(List<HistoryEvent> events, EventType type) {
    return events.stream().filter(e -> e.getEventType() == type).count();
  }
}
