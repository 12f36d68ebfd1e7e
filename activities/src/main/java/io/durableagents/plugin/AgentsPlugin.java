package io.durableagents.plugin;

import io.durableagents.activities.internal.AgentActivitiesImpl;
import io.durableagents.activities.internal.AgentDefinitions;
import io.durableagents.activities.internal.AgentRegistry;
import io.durableagents.activities.internal.ApprovalActivitiesImpl;
import io.durableagents.activities.internal.CheckpointActivitiesImpl;
import io.durableagents.activities.internal.ForkActivitiesImpl;
import io.durableagents.activities.internal.LeaseActivitiesImpl;
import io.durableagents.activities.internal.LifecycleActivitiesImpl;
import io.durableagents.activities.internal.ModelActivitiesImpl;
import io.durableagents.activities.internal.RunningTools;
import io.durableagents.activities.internal.SearchAttributeCheck;
import io.durableagents.activities.internal.ToolActivitiesImpl;
import io.durableagents.activities.internal.ToolHooks;
import io.durableagents.activities.internal.TranscriptCache;
import io.durableagents.metrics.WaitingApprovals;
import io.durableagents.projection.internal.ProjectionQueries;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.workflow.internal.AgentSessionWorkflowImpl;
import io.durableagents.workflow.internal.ConcurrencyKeyWorkflowImpl;
import io.temporal.common.SimplePlugin;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Registers the agent session workflow and its activities into a team's own workers.
 *
 * <pre>{@code
 * AgentStore store = AgentStores.open("jdbc:sqlite:.agents/projection.db");
 * AgentsPlugin plugin = new AgentsPlugin(AgentsPluginOptions.newBuilder()
 *     .addAgent(concierge)
 *     .setModelProvider(ScriptedModelProvider.fromFile(Path.of("script.json")))
 *     .setStore(store)
 *     .build());
 * WorkerFactory factory = WorkerFactory.newInstance(client,
 *     WorkerFactoryOptions.newBuilder().setPlugins(plugin).build());
 * factory.newWorker("agents");   // gets the workflow and activities
 * factory.start();
 * }</pre>
 */
public final class AgentsPlugin extends SimplePlugin {
  /** The plugin's name, as Temporal reports it. */
  public static final String NAME = "io.durableagents.AgentsPlugin";

  private final AgentsPluginOptions options;
  private final CheckpointStore store;
  private final AgentDefinitions definitions;
  private final AgentRegistry registry;
  private final SearchAttributeCheck searchAttributes;
  private final RunningTools runningTools = new RunningTools();
  private volatile Worker firstWorker;

  /** A plugin for the agents, store and model provider of {@code options}. */
  public AgentsPlugin(AgentsPluginOptions options) {
    super(NAME);
    this.options = options;
    this.registry =
        new AgentRegistry(
            options.getAgents(),
            options.getDynamicAgents(),
            options.getDefaultAgent(),
            options.getModelProvider());
    this.store = CheckpointStore.of(options.getStore());
    this.definitions = new AgentDefinitions(registry, store).withMetrics(options.getMetrics());
    this.searchAttributes = new SearchAttributeCheck(options.getSearchAttributeUpserts());
    options.getMetrics().watchWaitingApprovals(this::waitingApprovals);
  }

  /** The approvals that wait in the store, the oldest's wait measured now. */
  private WaitingApprovals waitingApprovals() {
    ProjectionQueries.PendingApprovals pending = store.pendingApprovals();
    long waited =
        pending.count() == 0 ? 0 : System.currentTimeMillis() - pending.oldestRequestedAt();
    return new WaitingApprovals(pending.count(), Duration.ofMillis(Math.max(0, waited)));
  }

  /**
   * Before the workers poll, finds out whether the namespace has the sessions' search attributes
   * (see {@link SearchAttributeUpserts}); once they poll, warms the first of them up with a replay
   * in the background ({@link WorkerWarmUp}).
   */
  @Override
  public void startWorkerFactory(WorkerFactory factory, Consumer<WorkerFactory> next) {
    searchAttributes.decide(factory.getWorkflowClient());
    super.startWorkerFactory(factory, next);
    Worker worker = firstWorker;
    if (worker != null) {
      WorkerWarmUp.start(worker);
    }
  }

  /**
   * Cancels the tool calls running on the plugin's workers before they shut down: handlers that
   * honour their cancellation stop, and their calls run again on another worker, instead of holding
   * the shutdown up for as long as they run.
   */
  @Override
  public void shutdownWorkerFactory(WorkerFactory factory, Consumer<WorkerFactory> next) {
    runningTools.cancelAllForShutdown();
    super.shutdownWorkerFactory(factory, next);
  }

  /** The options the plugin was built with. */
  public AgentsPluginOptions options() {
    return options;
  }

  /**
   * Lowers the worker's heartbeat throttling so that a cancel reaches a streaming model turn soon,
   * and gives workflow tasks the plugin's deadlock detection timeout where the worker's options
   * leave it unset, 0 (see {@link AgentsPluginOptions.Builder#setDeadlockDetectionTimeout}).
   */
  @Override
  public void configureWorker(String taskQueue, WorkerOptions.Builder builder) {
    super.configureWorker(taskQueue, builder);
    if (!appliesTo(taskQueue)) {
      return;
    }
    WorkerOptions current = builder.build();
    Duration interval = options.getCancelCheckInterval();
    if (interval != null
        && (current.getMaxHeartbeatThrottleInterval() == null
            || current.getMaxHeartbeatThrottleInterval().compareTo(interval) > 0)) {
      builder.setMaxHeartbeatThrottleInterval(interval);
    }
    Duration deadlock = options.getDeadlockDetectionTimeout();
    // 0 is unset: the SDK puts its own default (1 s) in only after the plugins configured.
    if (deadlock != null && current.getDefaultDeadlockDetectionTimeout() == 0) {
      builder.setDefaultDeadlockDetectionTimeout(deadlock.toMillis());
    }
  }

  private boolean appliesTo(String taskQueue) {
    return options.getTaskQueues().isEmpty() || options.getTaskQueues().contains(taskQueue);
  }

  @Override
  public void initializeWorker(String taskQueue, Worker worker) {
    super.initializeWorker(taskQueue, worker);
    if (!appliesTo(taskQueue)) {
      return;
    }
    worker.registerWorkflowImplementationTypes(
        AgentSessionWorkflowImpl.class, ConcurrencyKeyWorkflowImpl.class);
    if (firstWorker == null) {
      firstWorker = worker;
    }
    TranscriptCache transcripts = new TranscriptCache(options.getTranscriptCacheChars());
    worker.registerActivitiesImplementations(
        new AgentActivitiesImpl(definitions, searchAttributes),
        new ModelActivitiesImpl(
                definitions, store, options.getMaxPayloadBytes(), options.getDeltaListeners())
            .withArtifacts(options.getArtifactStore())
            .withTranscripts(transcripts)
            .withMetrics(options.getMetrics())
            .withTracer(options.getTracer()),
        new ToolActivitiesImpl(definitions, options.getMaxPayloadBytes())
            .withArtifacts(options.getArtifactStore())
            .withRunningTools(runningTools)
            .withHooks(new ToolHooks(options.getToolHooks(), options.getToolHookTimeout()))
            .withMetrics(options.getMetrics())
            .withTracer(options.getTracer()),
        new CheckpointActivitiesImpl(store, options.getDefaultAgent(), options.getMetrics()),
        new ApprovalActivitiesImpl(registry, store),
        new LeaseActivitiesImpl(),
        new ForkActivitiesImpl(definitions, store, searchAttributes).withTranscripts(transcripts),
        new LifecycleActivitiesImpl(store, searchAttributes));
  }
}
