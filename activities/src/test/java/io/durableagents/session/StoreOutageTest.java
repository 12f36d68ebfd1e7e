package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.agent.Execution;
import io.durableagents.conversation.Message;
import io.durableagents.session.internal.ApprovalRecord;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.Decision;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store is down when an activity needs it ({@link SessionTestKit#failStoreCalls}): recording a
 * run's definition, reading the definition a tool call or a fork runs under on a fresh worker,
 * saving a checkpoint by local activity. Each waits for the store and the run goes on as if nothing
 * happened: no failed run, no failed session, no error result.
 */
class StoreOutageTest {
  private static final String PAY =
      "{'turns':[{'text':'paying','toolCalls':[{'name':'pay','arguments':{'amount':500}}]},"
          + "{'text':'paid'}]}";

  /** The redeployed worker gets every workflow task (the test server keeps sticky queues). */
  private static final WorkerOptions NOT_STICKY =
      WorkerOptions.newBuilder().setStickyQueueScheduleToStartTimeout(Duration.ZERO).build();

  @TempDir Path dir;

  private SessionTestKit kit;

  @AfterEach
  void close() {
    if (kit != null) {
      kit.close();
    }
  }

  private SessionTestKit kitWithInstructions(String script, String instructions) {
    return new SessionTestKit(
        dir,
        Scripts.of(script),
        agent -> agent.setInstructions(instructions).setMaxSteps(10),
        WorkerFactoryOptions.newBuilder(),
        Execution.ACTIVITY,
        NOT_STICKY);
  }

  @Test
  void aRunStartedWhileTheStoreCannotRecordItsDefinition_waitsPastTheFiveAttemptsItHad() {
    kit = new SessionTestKit(dir, Scripts.of("{'turns':[{'text':'hello'}]}"), 10);
    kit.failStoreCalls("saveDefinition", 5);

    RunResult done = kit.send("resolve-1", "hi");

    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.text()).isEqualTo("hello");
    assertThat(kit.storeCalls.get("saveDefinition")).hasValue(6);
  }

  @Test
  void anApprovedCallOnAFreshWorker_waitsForTheStoreToReadItsDefinition_andRunsOnce() {
    kit = kitWithInstructions(PAY, "v1");
    RunResult paused = kit.send("tool-1", "pay the bill");
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    // A deploy changed the agent: the run's definition is no longer the worker's, and the fresh
    // worker must read it before it runs the call; more failures than the tool has attempts.
    kit.redeploy(agent -> agent.setInstructions("v2").setMaxSteps(10));
    kit.failStoreCalls("definition", 4);

    kit.session("tool-1").approve(new Decision(paused.approval().approvalId(), true, "ok", "a"));
    kit.env.sleep(Duration.ofMinutes(1)); // lets the test server skip the waits
    RunResult done = kit.attach("tool-1");

    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.text()).isEqualTo("paid");
    assertThat(kit.effects).containsOnlyKeys("call_0_0");
    assertThat(kit.effects.get("call_0_0")).hasValue(1);
    assertThat(kit.storeCalls.get("definition")).hasValue(5);
    Message result = kit.store.readMessages("tool-1", done.messageCount()).get(2);
    assertThat(result.toolCallId()).isEqualTo("call_0_0");
    assertThat(result.result()).hasToString("{\"paid\":500}");
    // The approval's timeout (an hour), then each wait is a durable timer, and each call again a
    // new activity; after the run, the session's idle timer (the default 30 days).
    List<HistoryEvent> events = kit.client.fetchHistory("tool-1").getEvents();
    assertThat(events)
        .filteredOn(e -> e.getEventType() == EventType.EVENT_TYPE_TIMER_STARTED)
        .extracting(e -> e.getTimerStartedEventAttributes().getStartToFireTimeout().getSeconds())
        .containsExactly(3600L, 1L, 2L, 4L, 8L, 30L * 24 * 3600);
    assertThat(events)
        .filteredOn(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
        .filteredOn(
            e ->
                e.getActivityTaskScheduledEventAttributes()
                    .getActivityType()
                    .getName()
                    .equals("agents.ExecuteTool"))
        .hasSize(5);
  }

  @Test
  void aCancel_endsTheWaitOfACallForTheStore() {
    kit = kitWithInstructions(PAY, "v1");
    RunResult paused = kit.send("cancel-1", "pay the bill");
    kit.redeploy(agent -> agent.setInstructions("v2").setMaxSteps(10));
    kit.failStoreCalls("definition", 1_000);

    kit.session("cancel-1").approve(new Decision(paused.approval().approvalId(), true, "ok", "a"));
    kit.env.sleep(Duration.ofSeconds(10)); // the call has found the store down and waits
    assertThat(kit.storeCalls.get("definition").get()).isGreaterThan(1);
    kit.session("cancel-1").cancel("test");
    RunResult done = kit.attach("cancel-1");

    assertThat(done.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(kit.effects).isEmpty();
    Message result = kit.store.readMessages("cancel-1", done.messageCount()).get(2);
    assertThat(result.result().path("error").asText()).isEqualTo("cancelled");
  }

  @Test
  void aRejectionSavedByLocalActivity_whileTheStoreIsDown_isSavedOnceItIsBack() {
    kit = new SessionTestKit(dir, Scripts.of(PAY), 10);
    RunResult paused = kit.send("reject-1", "pay the bill");
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    int savesBefore = kit.storeCalls.get("saveCheckpoint").get();
    kit.failStoreCalls("saveCheckpoint", 3);

    kit.session("reject-1").approve(new Decision(paused.approval().approvalId(), false, "no", "b"));
    RunResult done = kit.attach("reject-1");

    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(kit.effects).isEmpty();
    assertThat(kit.storeCalls.get("saveCheckpoint").get()).isGreaterThan(savesBefore + 3);
    ApprovalRecord rejected = kit.store.approvals("reject-1", false).get(0);
    assertThat(rejected.status()).isEqualTo(ApprovalStatus.REJECTED);
    assertThat(rejected.note()).isEqualTo("no");
  }

  @Test
  void aForkOnAFreshWorker_waitsForTheStoreToReadItsEntrysDefinition_insteadOfBeingRefused() {
    kit = kitWithInstructions("{'turns':[{'text':'first'},{'text':'forked'}]}", "v1");
    RunResult first = kit.send("fork-src", "hi");
    assertThat(first.status()).isEqualTo(RunStatus.FINISHED);
    kit.redeploy(agent -> agent.setInstructions("v2").setMaxSteps(10));
    kit.failStoreCalls("definition", 3);

    RunResult forked =
        kit.fork(
            "fork-src",
            first.checkpointStep(),
            ForkPatch.newBuilder().setAppendInput("and more").build(),
            "fork-1");

    assertThat(forked.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(forked.text()).isEqualTo("forked");
    assertThat(kit.storeCalls.get("definition")).hasValue(4);
  }
}
