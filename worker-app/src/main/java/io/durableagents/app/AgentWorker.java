package io.durableagents.app;

import io.durableagents.app.demo.DemoModel;
import io.durableagents.app.http.SseDeltaServer;
import io.durableagents.cli.CliException;
import io.durableagents.cli.ConnectionSettings;
import io.durableagents.cli.ExitCodes;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelProviders;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.projection.ProjectionUrl;
import io.durableagents.store.AgentStore;
import io.durableagents.streaming.DeltaListener;
import io.durableagents.testing.ConciergeAgent;
import io.temporal.client.WorkflowClient;
import io.temporal.common.VersioningBehavior;
import io.temporal.common.WorkerDeploymentVersion;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerDeploymentOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.nio.file.FileSystemException;
import java.util.List;

/**
 * A running worker: connection to Temporal, the projection store and the plugin with the demo agent
 * (or the agents of {@link WorkerConfig#agents()}), polling one task queue, and, with {@link
 * WorkerConfig#httpPort()}, the server-sent events endpoint of model deltas. Close it to stop
 * polling and release everything.
 *
 * <p>With {@link WorkerConfig#deployment()} it polls as that worker deployment version, with
 * Temporal's worker versioning on ({@link #workerOptions}): see docs/deploys.md.
 */
public final class AgentWorker implements AutoCloseable {
  private final WorkflowServiceStubs service;
  private final WorkflowClient client;
  private final WorkerFactory factory;
  private final Worker worker;
  private final AgentStore store;
  private final SseDeltaServer events;

  private AgentWorker(
      WorkflowServiceStubs service,
      WorkflowClient client,
      WorkerFactory factory,
      Worker worker,
      AgentStore store,
      SseDeltaServer events) {
    this.service = service;
    this.client = client;
    this.factory = factory;
    this.worker = worker;
    this.store = store;
    this.events = events;
  }

  /**
   * Connects (failing in seconds on a wrong address, namespace or credentials, before the store is
   * opened and migrated), registers the plugin on {@code config.taskQueue()} and starts polling. A
   * store that cannot be opened or an events port that cannot be listened on is a {@link
   * CliException} naming it and the setting to change.
   */
  public static AgentWorker start(WorkerConfig config) {
    return start(config, List.of());
  }

  /**
   * {@link #start(WorkerConfig)}, handing the deltas of the model turns this worker runs to {@code
   * deltaListeners} too (e.g. a console in this process).
   */
  public static AgentWorker start(WorkerConfig config, List<DeltaListener> deltaListeners) {
    ModelProvider model =
        config.modelSpec() == null ? new DemoModel() : ModelProviders.fromSpec(config.modelSpec());
    WorkflowServiceStubs service = config.temporal().connect();
    AgentStore store = null;
    SseDeltaServer events = null;
    try {
      store = openStore(config);
      if (config.httpPort() != null) {
        events = startEvents(config.httpPort());
      }
      WorkflowClient client =
          WorkflowClient.newInstance(service, config.temporal().clientOptions());
      AgentsPluginOptions.Builder options =
          AgentsPluginOptions.newBuilder().setModelProvider(model).setStore(store);
      if (config.agents() == null) {
        options.addAgent(ConciergeAgent.create());
      } else {
        config.agents().agents().forEach(options::addAgent);
        options.setDefaultAgent(config.agents().defaultAgent());
      }
      if (events != null) {
        options.addDeltaListener(events);
      }
      deltaListeners.forEach(options::addDeltaListener);
      AgentsPlugin plugin = new AgentsPlugin(options.build());
      WorkerFactory factory =
          WorkerFactory.newInstance(
              client, WorkerFactoryOptions.newBuilder().setPlugins(plugin).build());
      Worker worker = factory.newWorker(config.taskQueue(), workerOptions(config.deployment()));
      factory.start();
      return new AgentWorker(service, client, factory, worker, store, events);
    } catch (RuntimeException e) {
      if (events != null) {
        events.close();
      }
      if (store != null) {
        store.close();
      }
      service.shutdownNow();
      throw e;
    }
  }

  /**
   * The projection store of {@code config}, or a one-line {@link CliException} naming its URL: exit
   * code 2 for a URL that names no supported store, 1 for one that cannot be opened.
   */
  private static AgentStore openStore(WorkerConfig config) {
    String url = ProjectionUrl.describe(config.projectionUrl());
    try {
      return StoreOpening.open(config.projectionUrl(), config.storeOptions());
    } catch (IllegalArgumentException e) {
      throw new CliException(
          ExitCodes.USAGE, e.getMessage() + " (fix --projection or AGENTS_PROJECTION_URL).", e);
    } catch (RuntimeException e) {
      throw new CliException(
          ExitCodes.ERROR,
          "Cannot open the projection store "
              + url
              + ": "
              + rootMessage(e)
              + " (fix --projection or AGENTS_PROJECTION_URL).",
          e);
    }
  }

  /** The events endpoint on {@code port}, or a one-line {@link CliException} naming the port. */
  private static SseDeltaServer startEvents(int port) {
    try {
      return SseDeltaServer.start(port);
    } catch (RuntimeException e) {
      throw new CliException(
          ExitCodes.ERROR,
          "Cannot serve model deltas on 127.0.0.1:"
              + port
              + ": "
              + rootMessage(e)
              + " (stop what listens there or choose another --http-port).",
          e);
    }
  }

  /** The innermost message; for a file system error, its kind too (its message is a path). */
  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage();
    if (message == null || message.isBlank()) {
      return root.getClass().getSimpleName();
    }
    return root instanceof FileSystemException
        ? root.getClass().getSimpleName() + ": " + message
        : message;
  }

  /**
   * The options of a worker polling as {@code deployment}: worker versioning on, workflows pinned
   * to the version they start on by default (the session workflow declares it too). Null gives an
   * unversioned worker. Every other option is left unset, so the plugin and the SDK apply their
   * defaults: {@code WorkerOptions.getDefaultInstance()} would hold the SDK's defaults as if set,
   * among them a 1 s deadlock detection timeout the plugin must keep as the worker's own choice.
   */
  public static WorkerOptions workerOptions(WorkerDeploymentVersion deployment) {
    if (deployment == null) {
      return WorkerOptions.newBuilder().build();
    }
    return WorkerOptions.newBuilder()
        .setDeploymentOptions(
            WorkerDeploymentOptions.newBuilder()
                .setVersion(deployment)
                .setUseVersioning(true)
                .setDefaultVersioningBehavior(VersioningBehavior.PINNED)
                .build())
        .build();
  }

  /**
   * Stubs for a plain connection to {@code address}, checked with a health call and the {@code
   * default} namespace so a wrong address fails fast (a {@code CliException} naming it).
   */
  public static WorkflowServiceStubs connect(String address) {
    return ConnectionSettings.plain(address, WorkerConfig.DEFAULT_NAMESPACE).connect();
  }

  /**
   * The worker's client, e.g. for a console in the same process; usable until the worker closes.
   */
  public WorkflowClient client() {
    return client;
  }

  /** The options the worker polls with, as the plugin and the SDK completed them. */
  WorkerOptions pollingOptions() {
    return worker.getWorkerOptions();
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
