package io.durableagents.testing;

import io.durableagents.plugin.AgentsPlugin;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.WorkerFactoryOptions;

/** A started in-memory Temporal test environment whose one worker runs {@code plugin}. */
public final class PluginTestEnvironment {
  private PluginTestEnvironment() {}

  public static TestWorkflowEnvironment start(AgentsPlugin plugin, String taskQueue) {
    TestWorkflowEnvironment env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkerFactoryOptions(
                    WorkerFactoryOptions.newBuilder().setPlugins(plugin).build())
                .build());
    env.newWorker(taskQueue);
    env.start();
    return env;
  }
}
