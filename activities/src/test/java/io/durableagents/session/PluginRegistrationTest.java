package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.durableagents.agent.Agent;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.store.AgentStores;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.testing.SessionUpdates;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.client.WorkflowClient;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The plugin in a team's own, plain WorkerFactory, next to the team's other task queues. */
class PluginRegistrationTest {
  @TempDir Path dir;

  @Test
  void pluginInAPlainWorkerFactory_servesSessionsOnItsTaskQueue() {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
        CheckpointStore store =
            CheckpointStore.of(AgentStores.open("jdbc:sqlite:" + dir.resolve("p.db")))) {
      Agent agent =
          Agent.newBuilder("helper")
              .setTools(
                  Tool.newBuilder("ping").setHandler((args, ctx) -> Map.of("pong", true)).build())
              .build();
      AgentsPlugin plugin =
          new AgentsPlugin(
              AgentsPluginOptions.newBuilder()
                  .addAgent(agent)
                  .setModelProvider(
                      ScriptedModelProvider.fromJson(
                          "{\"turns\":[{\"toolCalls\":[{\"name\":\"ping\"}]},{\"text\":\"pong\"}]}"))
                  .setStore(store)
                  .setTaskQueues("team-agents")
                  .build());
      WorkflowClient client = env.getWorkflowClient();
      WorkerFactory factory =
          WorkerFactory.newInstance(
              client, WorkerFactoryOptions.newBuilder().setPlugins(plugin).build());
      factory.newWorker("team-agents");
      factory.newWorker("team-other-work"); // the plugin leaves this queue alone
      factory.start();
      try {
        RunResult result = send(client, "team-agents", "s-1");
        assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
        assertThat(result.text()).isEqualTo("pong");
        assertThat(result.toolCalls().get(0).result().get("pong").asBoolean()).isTrue();
      } finally {
        factory.shutdownNow();
      }
    }
  }

  @Test
  void theCancelCheckInterval_lowersTheWorkersHeartbeatThrottle_onItsTaskQueuesOnly() {
    try (CheckpointStore store =
        CheckpointStore.of(AgentStores.open("jdbc:sqlite:" + dir.resolve("c.db")))) {
      AgentsPluginOptions.Builder options = minimalOptions(store);
      AgentsPlugin plugin = new AgentsPlugin(options.setTaskQueues("agents").build());

      assertThat(throttleAfter(plugin, "agents", null)).isEqualTo(Duration.ofMillis(500));
      assertThat(throttleAfter(plugin, "agents", Duration.ofMillis(300)))
          .isEqualTo(Duration.ofMillis(300));
      assertThat(throttleAfter(plugin, "other", Duration.ofSeconds(30)))
          .isEqualTo(Duration.ofSeconds(30));
      AgentsPlugin untouched = new AgentsPlugin(options.setCancelCheckInterval(null).build());
      assertThat(throttleAfter(untouched, "agents", Duration.ofSeconds(30)))
          .isEqualTo(Duration.ofSeconds(30));
      assertThatThrownBy(() -> options.setCancelCheckInterval(Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void theDeadlockDetectionTimeout_replacesTheSdkDefault_butNotAWorkersOwnValue() {
    try (CheckpointStore store =
        CheckpointStore.of(AgentStores.open("jdbc:sqlite:" + dir.resolve("d.db")))) {
      AgentsPluginOptions.Builder options = minimalOptions(store).setTaskQueues("agents");
      AgentsPlugin plugin = new AgentsPlugin(options.build());

      assertThat(deadlockTimeoutAfter(plugin, "agents", 0)).isEqualTo(5000);
      assertThat(deadlockTimeoutAfter(plugin, "agents", 1500)).isEqualTo(1500);
      // A team's own 1 s, the SDK's default value, set explicitly: kept.
      assertThat(deadlockTimeoutAfter(plugin, "agents", 1000)).isEqualTo(1000);
      assertThat(deadlockTimeoutAfter(plugin, "other", 0)).isZero();
      AgentsPlugin custom =
          new AgentsPlugin(options.setDeadlockDetectionTimeout(Duration.ofSeconds(8)).build());
      assertThat(deadlockTimeoutAfter(custom, "agents", 0)).isEqualTo(8000);
      AgentsPlugin untouched = new AgentsPlugin(options.setDeadlockDetectionTimeout(null).build());
      assertThat(deadlockTimeoutAfter(untouched, "agents", 0)).isZero();
      assertThatThrownBy(() -> options.setDeadlockDetectionTimeout(Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  /** The deadlock detection timeout (ms, 0: the SDK's default) after the plugin configured it. */
  private static long deadlockTimeoutAfter(AgentsPlugin plugin, String queue, long set) {
    io.temporal.worker.WorkerOptions.Builder builder =
        io.temporal.worker.WorkerOptions.newBuilder().setDefaultDeadlockDetectionTimeout(set);
    plugin.configureWorker(queue, builder);
    return builder.build().getDefaultDeadlockDetectionTimeout();
  }

  /**
   * The maximum heartbeat throttle interval of a worker of {@code queue} configured by the plugin.
   */
  private static Duration throttleAfter(AgentsPlugin plugin, String queue, Duration set) {
    io.temporal.worker.WorkerOptions.Builder builder =
        io.temporal.worker.WorkerOptions.newBuilder();
    if (set != null) {
      builder.setMaxHeartbeatThrottleInterval(set);
    }
    plugin.configureWorker(queue, builder);
    return builder.build().getMaxHeartbeatThrottleInterval();
  }

  @Test
  void optionsWithoutStoreOrAgent_areRefusedWithAClearMessage() {
    assertThatThrownBy(() -> AgentsPluginOptions.newBuilder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("at least one agent");
    assertThatThrownBy(
            () -> AgentsPluginOptions.newBuilder().addAgent(Agent.newBuilder("a").build()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("store");
  }

  @Test
  void theTranscriptCacheBound_defaultsTo32MillionCharacters_andRefusesANegativeOne() {
    try (CheckpointStore store =
        CheckpointStore.of(AgentStores.open("jdbc:sqlite:" + dir.resolve("t.db")))) {
      AgentsPluginOptions.Builder options = minimalOptions(store);
      assertThat(options.build().getTranscriptCacheChars()).isEqualTo(32L * 1024 * 1024);
      assertThat(options.setTranscriptCacheChars(0).build().getTranscriptCacheChars()).isZero();
      assertThatThrownBy(() -> options.setTranscriptCacheChars(-1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("transcriptCacheChars must be 0 or more, got -1");
    }
  }

  /** One agent with no tools, a store and a model that never answers: all the builder needs. */
  private static AgentsPluginOptions.Builder minimalOptions(CheckpointStore store) {
    return AgentsPluginOptions.newBuilder()
        .addAgent(Agent.newBuilder("a").build())
        .setStore(store)
        .setModelProvider(ScriptedModelProvider.fromJson("{\"turns\":[]}"));
  }

  private static RunResult send(WorkflowClient client, String taskQueue, String sessionId) {
    return SessionUpdates.sendWithStart(
        client, taskQueue, new SendRequest("hi"), new SessionStart(sessionId, null, null));
  }
}
