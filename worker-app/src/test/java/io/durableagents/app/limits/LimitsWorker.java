package io.durableagents.app.limits;

import io.durableagents.agent.Agent;
import io.durableagents.app.AgentWorker;
import io.durableagents.artifacts.FileArtifactStore;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.ProjectionReader;
import io.durableagents.model.ModelProvider;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.store.AgentStores;
import io.durableagents.store.internal.CheckpointStore;
import io.temporal.client.WorkflowClient;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A worker in the test's process on a real Temporal server: the plugin with one agent and model, a
 * SQLite projection and an artifact store under {@code dir}, and a client that reads the projection
 * like an application's would.
 */
final class LimitsWorker implements AutoCloseable {
  final WorkflowServiceStubs service;
  final WorkflowClient client;
  final CheckpointStore store;
  final FileArtifactStore artifacts;
  final AgentClient agents;
  final Worker worker;
  private final ProjectionReader projection;
  private final WorkerFactory factory;

  private LimitsWorker(
      WorkflowServiceStubs service,
      WorkflowClient client,
      CheckpointStore store,
      FileArtifactStore artifacts,
      ProjectionReader projection,
      WorkerFactory factory,
      Worker worker,
      String taskQueue) {
    this.service = service;
    this.client = client;
    this.store = store;
    this.artifacts = artifacts;
    this.projection = projection;
    this.factory = factory;
    this.worker = worker;
    this.agents =
        AgentClient.newInstance(
            client,
            AgentClientOptions.newBuilder()
                .setTaskQueue(taskQueue)
                .setProjection(projection)
                .build());
  }

  /**
   * Polls {@code taskQueue} on the server at {@code address}. Call {@link #start()} after
   * registering anything else on {@link #worker}.
   */
  static LimitsWorker create(
      String address, Path dir, String taskQueue, Agent agent, ModelProvider model) {
    return create(address, dir, taskQueue, agent, model, WorkerOptions.newBuilder().build());
  }

  /** A worker with {@code workerOptions}, and {@code interceptors} added to its factory. */
  static LimitsWorker create(
      String address,
      Path dir,
      String taskQueue,
      Agent agent,
      ModelProvider model,
      WorkerOptions workerOptions,
      WorkerInterceptor... interceptors) {
    String url = "jdbc:sqlite:" + dir.resolve("projection.db");
    CheckpointStore store = CheckpointStore.of(AgentStores.open(url));
    FileArtifactStore artifacts = new FileArtifactStore(dir.resolve("artifacts"));
    WorkflowServiceStubs service = AgentWorker.connect(address);
    WorkflowClient client = WorkflowClient.newInstance(service);
    AgentsPlugin plugin =
        new AgentsPlugin(
            AgentsPluginOptions.newBuilder()
                .addAgent(agent)
                .setModelProvider(model)
                .setStore(store)
                .setArtifactStore(artifacts)
                .setTaskQueues(taskQueue)
                .build());
    WorkerFactory factory =
        WorkerFactory.newInstance(
            client,
            WorkerFactoryOptions.newBuilder()
                .setPlugins(plugin)
                .setWorkerInterceptors(interceptors)
                .build());
    Worker worker = factory.newWorker(taskQueue, workerOptions);
    return new LimitsWorker(
        service, client, store, artifacts, ProjectionReader.open(url), factory, worker, taskQueue);
  }

  LimitsWorker start() {
    factory.start();
    return this;
  }

  @Override
  public void close() {
    factory.shutdown();
    factory.awaitTermination(10, TimeUnit.SECONDS);
    service.shutdown();
    service.awaitTermination(5, TimeUnit.SECONDS);
    projection.close();
    store.close();
  }
}
