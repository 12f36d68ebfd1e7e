package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.durableagents.agent.Agent;
import io.durableagents.agent.Execution;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import io.durableagents.model.ModelException;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelResponse;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.store.AgentStores;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.testing.SessionUpdates;
import io.durableagents.tools.RetryableToolException;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.activity.Activity;
import io.temporal.common.RetryOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent's model turns and a tool's calls run on the task queue and with the retry options they
 * name: each activity reports the queue it ran on, and a failure that the default policy would give
 * up on succeeds within the team's own attempts.
 */
class TaskQueuesAndRetriesTest {
  private static final String SESSIONS = "agents";
  private static final String MODELS = "agents-models";
  private static final String TOOLS = "agents-tools";
  private static final RetryOptions FIVE_QUICK_ATTEMPTS =
      RetryOptions.newBuilder()
          .setInitialInterval(Duration.ofMillis(10))
          .setMaximumInterval(Duration.ofMillis(10))
          .setMaximumAttempts(5)
          .build();

  @TempDir Path dir;

  /** Where each activity ran: "model" and the tool's name, to its task queue. */
  private final Map<String, String> queues = new ConcurrentHashMap<>();

  private final AtomicInteger modelAttempts = new AtomicInteger();
  private final AtomicInteger toolAttempts = new AtomicInteger();

  /**
   * Fails its first four attempts retryably, then asks for one call of {@code lookup}, then
   * answers.
   */
  private final ModelProvider flakyModel =
      (request, stream) -> {
        queues.put("model", Activity.getExecutionContext().getInfo().getActivityTaskQueue());
        if (modelAttempts.incrementAndGet() <= 4) {
          throw new ModelException("rate_limited", "try again", true, null);
        }
        boolean called = request.messages().stream().anyMatch(m -> m.role() == Role.TOOL);
        return called
            ? new ModelResponse("done", List.of(), null, new Usage(1, 1))
            : new ModelResponse(
                "", List.of(new ToolCall("c1", "lookup", null)), null, new Usage(1, 1));
      };

  private Tool.Builder flakyTool() {
    return Tool.newBuilder("lookup")
        .setHandler(
            (arguments, context) -> {
              queues.put("lookup", Activity.getExecutionContext().getInfo().getActivityTaskQueue());
              if (toolAttempts.incrementAndGet() <= 4) {
                throw new RetryableToolException("flaky");
              }
              return Map.of("found", true);
            });
  }

  @Test
  void modelTurnsAndToolCalls_runOnTheirQueues_withTheirRetryOptions() {
    Agent agent =
        Agent.newBuilder("helper")
            .setTaskQueue(MODELS)
            .setRetryOptions(FIVE_QUICK_ATTEMPTS)
            .setTools(flakyTool().setTaskQueue(TOOLS).setRetryOptions(FIVE_QUICK_ATTEMPTS).build())
            .build();

    RunResult result = run(agent);

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(result.text()).isEqualTo("done");
    assertThat(result.toolCalls().get(0).result().get("found").asBoolean()).isTrue();
    assertThat(queues).containsEntry("model", MODELS).containsEntry("lookup", TOOLS);
    assertThat(modelAttempts).hasValue(6); // 4 failed + 1 asking for the tool + 1 answer
    assertThat(toolAttempts).hasValue(5);
  }

  @Test
  void withoutThem_theWorkflowsQueueAndTheDefaultAttemptsApply() {
    Agent agent = Agent.newBuilder("helper").setTools(flakyTool().build()).build();

    RunResult result = run(agent);

    // The default policy gives the model four attempts: the run fails on the fourth failure.
    assertThat(result.status()).isEqualTo(RunStatus.FAILED);
    assertThat(result.error().code()).isEqualTo("rate_limited");
    assertThat(modelAttempts).hasValue(4);
    assertThat(queues).containsEntry("model", SESSIONS);
  }

  /**
   * Temporal reads {@code maximumAttempts} 0 as unlimited, but the SDK runs a local activity with
   * it (and no schedule-to-close timeout) once, without retries: local turns and tools must still
   * get the unlimited attempts their options ask for.
   */
  @Test
  void localModelTurnsAndToolCalls_withUnlimitedAttempts_areRetried() {
    RetryOptions unlimited =
        RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofMillis(10))
            .setMaximumInterval(Duration.ofMillis(10))
            .build();
    Agent agent =
        Agent.newBuilder("helper")
            .setModelExecution(Execution.LOCAL_ACTIVITY)
            .setRetryOptions(unlimited)
            .setTools(
                flakyTool()
                    .setExecution(Execution.LOCAL_ACTIVITY)
                    .setRetryOptions(unlimited)
                    .build())
            .build();

    RunResult result = run(agent);

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(result.text()).isEqualTo("done");
    assertThat(modelAttempts).hasValue(6);
    assertThat(toolAttempts).hasValue(5);
  }

  @Test
  void aLocalToolOrLocalModel_cannotHaveAQueue() {
    assertThatThrownBy(
            () -> flakyTool().setExecution(Execution.LOCAL_ACTIVITY).setTaskQueue(TOOLS).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("local tool");
    assertThatThrownBy(
            () ->
                Agent.newBuilder("helper")
                    .setModelExecution(Execution.LOCAL_ACTIVITY)
                    .setTaskQueue(MODELS)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("local model turns");
    assertThatThrownBy(() -> flakyTool().setTaskQueue(" ").build()).hasMessageContaining("blank");
  }

  private RunResult run(Agent agent) {
    CheckpointStore store =
        CheckpointStore.of(AgentStores.open("jdbc:sqlite:" + dir.resolve("projection.db")));
    AgentsPlugin plugin =
        new AgentsPlugin(
            AgentsPluginOptions.newBuilder()
                .addAgent(agent)
                .setModelProvider(flakyModel)
                .setStore(store)
                .build());
    TestWorkflowEnvironment env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkerFactoryOptions(
                    WorkerFactoryOptions.newBuilder().setPlugins(plugin).build())
                .build());
    try {
      env.newWorker(SESSIONS);
      env.newWorker(MODELS);
      env.newWorker(TOOLS);
      env.start();
      return SessionUpdates.sendWithStart(
          env.getWorkflowClient(),
          SESSIONS,
          new SendRequest("look it up"),
          new SessionStart("s-1", null, null));
    } finally {
      env.close();
      store.close();
    }
  }
}
