package io.durableagents.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.cli.ConnectionSettings;
import io.durableagents.plugin.AgentsPluginOptions;
import io.temporal.common.WorkerDeploymentVersion;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worker app's workers poll with the options the plugin completes. */
class AgentWorkerOptionsTest {
  private static final long PLUGIN_DEADLOCK_MS =
      AgentsPluginOptions.DEFAULT_DEADLOCK_DETECTION_TIMEOUT.toMillis();

  @TempDir Path dir;

  @Test
  void unversionedAndVersionedWorkers_getThePluginsDeadlockDetectionTimeout() {
    assertThat(PLUGIN_DEADLOCK_MS).as("the SDK's own default is 1 s").isGreaterThan(1_000);
    try (EmbeddedTemporalServer server = EmbeddedTemporalServer.start(0);
        AgentWorker unversioned = AgentWorker.start(config(server, "plain", null));
        AgentWorker versioned =
            AgentWorker.start(
                config(server, "versioned", new WorkerDeploymentVersion("agents", "v1")))) {
      assertThat(unversioned.pollingOptions().getDefaultDeadlockDetectionTimeout())
          .isEqualTo(PLUGIN_DEADLOCK_MS);
      assertThat(versioned.pollingOptions().getDefaultDeadlockDetectionTimeout())
          .isEqualTo(PLUGIN_DEADLOCK_MS);
      assertThat(versioned.pollingOptions().getDeploymentOptions().isUsingVersioning()).isTrue();
    }
  }

  @Test
  void theOptionsLeaveTheDeadlockDetectionTimeoutUnset() {
    // Unset is 0 in the SDK's builder; the SDK's 1 s default is only filled in when it builds the
    // worker, after the plugins configured it.
    assertThat(AgentWorker.workerOptions(null).getDefaultDeadlockDetectionTimeout()).isZero();
    assertThat(
            AgentWorker.workerOptions(new WorkerDeploymentVersion("agents", "v1"))
                .getDefaultDeadlockDetectionTimeout())
        .isZero();
  }

  private WorkerConfig config(
      EmbeddedTemporalServer server, String taskQueue, WorkerDeploymentVersion deployment) {
    return new WorkerConfig(
        ConnectionSettings.plain(server.address(), WorkerConfig.DEFAULT_NAMESPACE),
        taskQueue,
        "jdbc:sqlite:" + dir.resolve(taskQueue + ".db"),
        null,
        null,
        null,
        deployment,
        null);
  }
}
