package io.durableagents.app;

import io.durableagents.app.demo.ConciergeAgent;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelProviders;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.store.AgentStore;
import io.durableagents.store.AgentStores;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;

/**
 * A running worker: connection to Temporal, the projection store and the plugin with the demo
 * agent, polling one task queue. Close it to stop polling and release everything.
 */
public final class AgentWorker implements AutoCloseable {
  private final WorkflowServiceStubs service;
  private final WorkflowClient client;
  private final WorkerFactory factory;
  private final AgentStore store;

  private AgentWorker(
      WorkflowServiceStubs service, WorkflowClient client, WorkerFactory factory, AgentStore store) {
    this.service = service;
    this.client = client;
    this.factory = factory;
    this.store = store;
  }

  /** Connects, registers the plugin on {@code config.taskQueue()} and starts polling. */
  public static AgentWorker start(WorkerConfig config) {
    ModelProvider model =
        config.modelSpec() == null
            ? ConciergeAgent.defaultScript()
            : ModelProviders.fromSpec(config.modelSpec());
    AgentStore store = AgentStores.open(config.projectionUrl());
    WorkflowServiceStubs service = null;
    try {
      service = connect(config.temporalAddress());
      WorkflowClient client =
          WorkflowClient.newInstance(
              service, WorkflowClientOptions.newBuilder().setNamespace(config.namespace()).build());
      AgentsPlugin plugin =
          new AgentsPlugin(
              AgentsPluginOptions.newBuilder()
                  .addAgent(ConciergeAgent.create())
                  .modelProvider(model)
                  .store(store)
                  .build());
      WorkerFactory factory =
          WorkerFactory.newInstance(client, WorkerFactoryOptions.newBuilder().setPlugins(plugin).build());
      factory.newWorker(config.taskQueue());
      factory.start();
      return new AgentWorker(service, client, factory, store);
    } catch (RuntimeException e) {
      if (service != null) {
        service.shutdownNow();
      }
      store.close();
      throw e;
    }
  }

  /** Stubs for {@code address}, checked with a health call so a wrong address fails fast. */
  public static WorkflowServiceStubs connect(String address) {
    WorkflowServiceStubs stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(address).build());
    try {
      stubs.healthCheck();
    } catch (RuntimeException e) {
      stubs.shutdownNow();
      throw new IllegalStateException(
          "Cannot reach Temporal at " + address + " (start one with './agents dev' or set TEMPORAL_ADDRESS): "
              + e.getMessage(),
          e);
    }
    return stubs;
  }

  public WorkflowClient client() {
    return client;
  }

  @Override
  public void close() {
    factory.shutdown();
    factory.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
    service.shutdown();
    service.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
    store.close();
  }
}
