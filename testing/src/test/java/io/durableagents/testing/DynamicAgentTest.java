package io.durableagents.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.agent.Agent;
import io.durableagents.client.Checkpoint;
import io.durableagents.client.ForkResult;
import io.durableagents.client.HistoryEntry;
import io.durableagents.client.SendOptions;
import io.durableagents.conversation.Usage;
import io.durableagents.model.ModelResponse;
import io.durableagents.session.RunStatus;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.client.WorkflowUpdateStage;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A dynamic agent is built per run from the run configuration sent with the message: the
 * configuration is saved with the run ({@code run_config}), and a fork of the run keeps it.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DynamicAgentTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The instructions of every model request, in order. */
  private final List<String> instructionsSeen = new CopyOnWriteArrayList<>();

  private AgentTestEnvironment start() {
    return AgentTestEnvironment.newBuilder()
        .addAgent(Agent.newBuilder("static").setModel("scripted").build())
        .setModelProvider(
            (request, stream) -> {
              instructionsSeen.add(request.instructions());
              return new ModelResponse("served", List.of(), null, new Usage(3, 2));
            })
        .addPluginOptions(
            options ->
                options.addDynamicAgent(
                    "tiered",
                    config ->
                        Agent.newBuilder("tiered")
                            .setModel("scripted")
                            .setInstructions(config.path("tier").asText("standard") + " service")
                            .build()))
        .start();
  }

  private static ObjectNode gold() {
    return JSON.createObjectNode().put("tier", "gold");
  }

  @Test
  void theRunConfigBuildsTheAgent_isSavedWithTheRun_andAForkKeepsIt() {
    try (AgentTestEnvironment env = start()) {
      SendOptions tiered = SendOptions.newBuilder().setAgent("tiered").setRunConfig(gold()).build();
      RunResult first = env.client().send("dyn-1", "hello", tiered);
      assertThat(first.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(instructionsSeen).containsExactly("gold service");
      Checkpoint saved = env.client().history("dyn-1", 1).get(0).checkpoint();
      assertThat(saved.runConfig()).isEqualTo(gold());
      assertThat(CheckpointStore.of(env.store()).session("dyn-1").orElseThrow().runConfig())
          .isEqualTo(gold());

      // A run sent without a configuration gets the factory's defaults.
      env.client().send("dyn-1", "again", SendOptions.getDefaultInstance());
      assertThat(instructionsSeen).containsExactly("gold service", "standard service");
      assertThat(env.client().history("dyn-1", 1).get(0).checkpoint().runConfig()).isNull();

      // A fork of the first run's entry continues that run, with its configuration.
      int firstStep =
          env.client().history("dyn-1", 0).stream()
              .filter(e -> e.checkpoint().run() == 1)
              .mapToInt(HistoryEntry::step)
              .max()
              .orElseThrow();
      ForkResult fork =
          env.client()
              .fork(
                  "dyn-1",
                  firstStep,
                  ForkPatch.newBuilder().setAppendInput("and more").build(),
                  "dyn-1-fork");
      RunResult forked = env.client().awaitRun(fork.sessionId());
      assertThat(forked.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(instructionsSeen.get(2)).isEqualTo("gold service");
      assertThat(env.client().history("dyn-1-fork", 1).get(0).checkpoint().runConfig())
          .isEqualTo(gold());
    }
  }

  @Test
  void aRunConfigThatIsNoObject_isRefusedByTheSendsValidator_andNothingIsWritten() {
    try (AgentTestEnvironment env = start()) {
      WorkflowClient client = env.workflowClient();
      AgentSessionWorkflow stub =
          client.newWorkflowStub(
              AgentSessionWorkflow.class,
              WorkflowOptions.newBuilder()
                  .setWorkflowId("dyn-bad")
                  .setTaskQueue(env.taskQueue())
                  .setWorkflowIdConflictPolicy(
                      io.temporal.api.enums.v1.WorkflowIdConflictPolicy
                          .WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
                  .build());
      SendRequest request =
          new SendRequest("hello", List.of(), null, JSON.createArrayNode().add("gold"));
      assertThatThrownBy(
              () ->
                  WorkflowClient.executeUpdateWithStart(
                      stub::send,
                      request,
                      UpdateOptions.newBuilder(RunResult.class)
                          .setUpdateName("send")
                          .setWaitForStage(WorkflowUpdateStage.COMPLETED)
                          .build(),
                      new WithStartWorkflowOperation<>(
                          stub::run, new SessionStart("dyn-bad", "tiered", null))))
          .isInstanceOf(WorkflowUpdateException.class)
          .hasStackTraceContaining("runConfig must be a JSON object, got array");
      assertThat(instructionsSeen).isEmpty();
      assertThat(CheckpointStore.of(env.store()).session("dyn-bad")).isEmpty();
    }
  }
}
