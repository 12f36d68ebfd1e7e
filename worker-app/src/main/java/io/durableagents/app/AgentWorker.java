package io.durableagents.app;

import io.durableagents.app.demo.ConciergeAgent;
import io.durableagents.app.http.SseDeltaServer;
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
 * agent, polling one task queue, and, with {@link WorkerConfig#httpPort()}, the server-sent
 * events endpoint of model deltas. Close it to stop polling and release everything.
 */
public final class AgentWorker implements AutoCloseable {
  private final WorkflowServiceStubs service;
  private final WorkflowClient client;
  private final WorkerFactory factory;
  private final AgentStore store;
  private final SseDeltaServer events;

  private AgentWorker(
      WorkflowServiceStubs service,
      WorkflowClient client,
      WorkerFactory factory,
      AgentStore store,
      SseDeltaServer events) {
    this.service = service;
    this.client = client;
    this.factory = factory;
    this.store = store;
    this.events = events;
  }

  /** Connects, registers the plugin on {@code config.taskQueue()} and starts polling. */
  public static AgentWorker start(WorkerConfig config) {
    ModelProvider model =
        config.modelSpec() == null
            ? ConciergeAgent.defaultScript()
            : ModelProviders.fromSpec(config.modelSpec());
    AgentStore store = AgentStores.open(config.projectionUrl(), config.storeOptions());
    WorkflowServiceStubs service = null;
    SseDeltaServer events = null;
    try {
      if (config.httpPort() != null) {
        events = SseDeltaServer.start(config.httpPort());
      }
      service = connect(config.temporalAddress());
      WorkflowClient client =
          WorkflowClient.newInstance(
              service, WorkflowClientOptions.newBuilder().setNamespace(config.namespace()).build());
      AgentsPluginOptions.Builder options =
          AgentsPluginOptions.newBuilder()
              .addAgent(ConciergeAgent.create())
              .modelProvider(model)
              .store(store);
      if (events != null) {
        options.addDeltaListener(events);
      }
      AgentsPlugin plugin = new AgentsPlugin(options.build());
      WorkerFactory factory =
          WorkerFactory.newInstance(client, WorkerFactoryOptions.newBuilder().setPlugins(plugin).build());
      factory.newWorker(config.taskQueue());
      factory.start();
      return new AgentWorker(service, client, factory, store, events);
    } catch (RuntimeException e) {
      if (events != null) {
        events.close();
      }
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

  /** The port of the events endpoint, or -1 when the worker serves none. */
  public int httpPort() {
    return events == null ? -1 : events.port();
  }

  @Override
  public void close() {
    factory.shutdown();
    factory.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
    if (events != null) {
      events.close();
    }
    service.shutdown();
    service.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
    store.close();
  }
}
