package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.agent.DriftPolicy;
import io.durableagents.conversation.Message;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.projection.internal.StoredEntry;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.Decision;
import io.durableagents.workflow.internal.wire.ErrorResults;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run paused at an approval, and a deploy that changes the agent's instructions before the
 * decision: the run keeps the definition it recorded, and each drift policy shows its outcome.
 */
class AgentDriftTest {
  private static final String SCRIPT =
      "{'turns':[{'text':'paying','toolCalls':[{'name':'pay','arguments':{'amount':500}}]},"
          + "{'text':'paid'},{'text':'next run'}]}";

  /**
   * The test server never moves work off a stopped worker's sticky queue (a real server does):
   * without stickiness the redeployed worker gets every workflow task.
   */
  private static final io.temporal.worker.WorkerOptions NOT_STICKY =
      io.temporal.worker.WorkerOptions.newBuilder()
          .setStickyQueueScheduleToStartTimeout(java.time.Duration.ZERO)
          .build();

  @TempDir Path dir;

  private SessionTestKit kit;

  /** The instructions of every model request, in order. */
  private final List<String> instructionsSeen = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    if (kit != null) {
      kit.close();
    }
  }

  private ModelProvider recording() {
    ScriptedModelProvider script = Scripts.of(SCRIPT);
    return (request, stream) -> {
      instructionsSeen.add(request.instructions());
      return script.generate(request, stream);
    };
  }

  /** Pauses a run at the approval of {@code pay} under v1, then redeploys with v2 instructions. */
  private RunResult pausedThenRedeployed(String sessionId, DriftPolicy policy) {
    kit =
        new SessionTestKit(
            dir,
            recording(),
            agent -> agent.setInstructions("v1: book carefully").setOnAgentDrift(policy),
            io.temporal.worker.WorkerFactoryOptions.newBuilder(),
            io.durableagents.agent.Execution.ACTIVITY,
            NOT_STICKY);
    RunResult paused = kit.send(sessionId, "pay the bill");
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    kit.redeploy(agent -> agent.setInstructions("v2: book fast").setOnAgentDrift(policy));
    kit.session(sessionId)
        .approve(new Decision(paused.approval().approvalId(), true, "ok", "alice"));
    return kit.attach(sessionId);
  }

  @Test
  void warn_theRunFinishesOnItsRecordedInstructions_andTheProjectionShowsTheDrift() {
    RunResult done = pausedThenRedeployed("warn-1", DriftPolicy.WARN);

    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.text()).isEqualTo("paid");
    assertThat(instructionsSeen).containsExactly("v1: book carefully", "v1: book carefully");
    assertThat(kit.effects).containsOnlyKeys("call_0_0");
    List<StoredEntry> history = kit.store.history("warn-1", 0);
    assertThat(history.get(0).drift()).isEqualTo("instructions changed");
    assertThat(history.get(history.size() - 1).drift()).isNull();
    assertThat(kit.store.session("warn-1").orElseThrow().drift()).isEqualTo("instructions changed");
    assertThat(kit.driftReports).as("reported once for the run").containsExactly("tester warn");

    // The next run starts under the worker's definition: no drift, the new instructions.
    RunResult next = kit.send("warn-1", "and now?");
    assertThat(next.text()).isEqualTo("next run");
    assertThat(instructionsSeen.get(2)).isEqualTo("v2: book fast");
    assertThat(kit.store.history("warn-1", 1).get(0).drift()).isNull();
    assertThat(kit.store.session("warn-1").orElseThrow().drift()).isNull();
  }

  @Test
  void error_theRunFailsWithAgentDrift_namingTheInstructions_andTheApprovedCallDoesNotRun() {
    RunResult done = pausedThenRedeployed("error-1", DriftPolicy.ERROR);

    assertThat(done.status()).isEqualTo(RunStatus.FAILED);
    assertThat(done.error().code()).isEqualTo(FailureTypes.AGENT_DRIFT);
    assertThat(done.error().message()).contains("instructions changed").contains("'tester'");
    assertThat(kit.effects).isEmpty();
    assertThat(kit.driftReports).containsExactly("tester error");
    assertThat(instructionsSeen).containsExactly("v1: book carefully");
    List<Message> transcript = kit.store.readMessages("error-1", done.messageCount());
    Message payResult = transcript.get(2);
    assertThat(payResult.toolCallId()).isEqualTo("call_0_0");
    assertThat(payResult.result().path("error").asText()).isEqualTo(FailureTypes.AGENT_DRIFT);
  }

  @Test
  void ignore_theRunFinishesOnItsRecordedInstructions_withoutAWord() {
    RunResult done = pausedThenRedeployed("ignore-1", DriftPolicy.IGNORE);

    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(instructionsSeen).containsExactly("v1: book carefully", "v1: book carefully");
    assertThat(kit.effects).containsOnlyKeys("call_0_0");
    assertThat(kit.store.history("ignore-1", 0)).allSatisfy(e -> assertThat(e.drift()).isNull());
    assertThat(kit.driftReports).as("counted, not logged").containsExactly("tester ignore");
  }

  @Test
  void aToolTheRunNeedsAndTheWorkerNoLongerHas_isAnErrorResult_notAStuckRun() {
    kit =
        new SessionTestKit(
            dir,
            recording(),
            agent -> agent.setOnAgentDrift(DriftPolicy.WARN),
            io.temporal.worker.WorkerFactoryOptions.newBuilder(),
            io.durableagents.agent.Execution.ACTIVITY,
            NOT_STICKY);
    RunResult paused = kit.send("gone-1", "pay the bill");
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    kit.redeploy(
        agent ->
            io.durableagents.agent.Agent.newBuilder("tester")
                .setModel("scripted")
                .setInstructions("test agent")
                .setOnAgentDrift(DriftPolicy.WARN));
    kit.session("gone-1")
        .approve(new Decision(paused.approval().approvalId(), true, "ok", "alice"));
    RunResult done = kit.attach("gone-1");

    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    Message payResult = kit.store.readMessages("gone-1", done.messageCount()).get(2);
    assertThat(payResult.result().path("error").asText()).isEqualTo(ErrorResults.TOOL_UNAVAILABLE);
    assertThat(kit.store.session("gone-1").orElseThrow().drift())
        .contains("tools removed: ")
        .contains("pay");
  }
}
