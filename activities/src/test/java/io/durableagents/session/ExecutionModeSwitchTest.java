package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.agent.Execution;
import io.durableagents.testing.TestReplayer;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.AgentSessionWorkflowImpl;
import io.durableagents.workflow.internal.wire.Decision;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.worker.WorkerOptions;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A deploy that switches the agent's model turns and tools between activities and local activities
 * while a session is paused in the middle of a run. The mode is part of the agent spec that each
 * run resolves through an activity, so it is recorded in history: the run in progress finishes in
 * the mode it started with, the next run uses the new one, and the whole history replays on the new
 * worker without a version marker.
 */
class ExecutionModeSwitchTest {
  private static final String SCRIPT =
      "{'turns':[{'toolCalls':[{'name':'echo','arguments':{'text':'before'}},"
          + "{'name':'pay','arguments':{'amount':900}}]},{'text':'one'},"
          + "{'toolCalls':[{'name':'echo','arguments':{'text':'after'}}]},{'text':'two'}]}";

  /**
   * The test server ignores a stopped worker's shutdown and never moves work off its sticky queue
   * (a real server does): without stickiness every workflow task goes to the shared queue.
   */
  private static final WorkerOptions NOT_STICKY =
      WorkerOptions.newBuilder().setStickyQueueScheduleToStartTimeout(Duration.ZERO).build();

  @TempDir Path dir;

  @ParameterizedTest(name = "from {0}")
  @EnumSource(Execution.class)
  void switchingModesBetweenDeploys_keepsRunningSessionsReplayable(Execution before)
      throws Exception {
    Execution after = before == Execution.ACTIVITY ? Execution.LOCAL_ACTIVITY : Execution.ACTIVITY;
    try (SessionTestKit kit = new SessionTestKit(dir, Scripts.of(SCRIPT), 10, before, NOT_STICKY)) {
      RunResult paused = kit.send("switch", "pay, then echo");
      assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);

      kit.redeploy(after);
      kit.session("switch")
          .approve(new Decision(paused.approval().approvalId(), true, "ok", "ops"));
      RunResult first = kit.attach("switch");
      RunResult second = kit.send("switch", "again");

      assertThat(first.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(first.text()).isEqualTo("one");
      assertThat(first.toolCalls().get(1).result().get("paid").asInt()).isEqualTo(900);
      assertThat(second.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(second.text()).isEqualTo("two");
      assertThat(second.toolCalls().get(0).result().get("echo").asText()).isEqualTo("after");
      assertThat(kit.effects)
          .allSatisfy((call, count) -> assertThat(count.get()).as(call).isEqualTo(1));
      assertThat(kit.effects).hasSize(3);

      WorkflowExecutionHistory history = kit.client.fetchHistory("switch");
      assertThat(history.getEvents())
          .extracting(HistoryEvent::getEventType)
          .doesNotContain(EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED);
      // Run 1 keeps the mode it resolved (two model turns, two tools); run 2 uses the new one.
      int toolActivitiesBefore = before == Execution.ACTIVITY ? 2 : 0;
      int toolActivitiesAfter = after == Execution.ACTIVITY ? 1 : 0;
      assertThat(scheduled(history, "agents.ExecuteTool"))
          .isEqualTo(toolActivitiesBefore + toolActivitiesAfter);
      assertThat(scheduled(history, "agents.ModelTurn")).isEqualTo(2);
      TestReplayer.replay(history, AgentSessionWorkflowImpl.class);
    }
  }

  private static long scheduled(WorkflowExecutionHistory history, String activityType) {
    return history.getEvents().stream()
        .filter(HistoryEvent::hasActivityTaskScheduledEventAttributes)
        .filter(
            e ->
                e.getActivityTaskScheduledEventAttributes()
                    .getActivityType()
                    .getName()
                    .equals(activityType))
        .count();
  }
}
