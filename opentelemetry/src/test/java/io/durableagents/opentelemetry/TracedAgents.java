package io.durableagents.opentelemetry;

import io.durableagents.artifacts.FileArtifactStore;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.ProjectionReader;
import io.durableagents.model.ModelProvider;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.store.AgentStore;
import io.durableagents.store.AgentStores;
import io.durableagents.testing.ConciergeAgent;
import io.durableagents.tracing.AgentTracer;
import io.opentelemetry.api.OpenTelemetry;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.file.Path;

/**
 * The demo agent on the in-memory Temporal, traced: the plugin with {@code tracer}, and Temporal's
 * client and worker interceptors over the same {@link OpenTelemetry}. {@code AgentTestEnvironment}
 * takes no interceptors, so this builds what it builds, with them.
 */
final class TracedAgents implements AutoCloseable {
  private final AgentStore store;
  private final ProjectionReader projection;
  private final TestWorkflowEnvironment temporal;
  private final AgentClient client;

  TracedAgents(
      Path directory, OpenTelemetry openTelemetry, AgentTracer tracer, ModelProvider model) {
    String url = "jdbc:sqlite:" + directory.resolve("projection.db");
    store = AgentStores.open(url);
    AgentsPlugin plugin =
        new AgentsPlugin(
            AgentsPluginOptions.newBuilder()
                .setStore(store)
                .setArtifactStore(new FileArtifactStore(directory.resolve("artifacts")))
                .addAgent(ConciergeAgent.create())
                .setModelProvider(model)
                .setTracer(tracer)
                .build());
    temporal =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkerFactoryOptions(
                    WorkerFactoryOptions.newBuilder()
                        .setPlugins(plugin)
                        .setWorkerInterceptors(TemporalTracing.workerInterceptor(openTelemetry))
                        .build())
                .setWorkflowClientOptions(
                    WorkflowClientOptions.newBuilder()
                        .setInterceptors(TemporalTracing.clientInterceptor(openTelemetry))
                        .build())
                .build());
    temporal.newWorker(AgentClientOptions.DEFAULT_TASK_QUEUE);
    temporal.start();
    projection = ProjectionReader.open(url);
    client =
        AgentClient.newInstance(
            temporal.getWorkflowClient(),
            AgentClientOptions.newBuilder().setProjection(projection).build());
  }

  AgentClient client() {
    return client;
  }

  @Override
  public void close() {
    temporal.close();
    projection.close();
    store.close();
  }
}
