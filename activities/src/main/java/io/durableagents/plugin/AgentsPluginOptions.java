package io.durableagents.plugin;

import io.durableagents.agent.Agent;
import io.durableagents.agent.AgentFactory;
import io.durableagents.artifacts.ArtifactStore;
import io.durableagents.artifacts.FileArtifactStore;
import io.durableagents.metrics.AgentMetrics;
import io.durableagents.model.ModelProvider;
import io.durableagents.store.AgentStore;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.streaming.DeltaListener;
import io.durableagents.tools.ToolHook;
import io.durableagents.tracing.AgentTracer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What {@link AgentsPlugin} registers: the agents, the default model provider and the store of
 * transcripts and checkpoints. Immutable; build with {@link #newBuilder()}.
 */
public final class AgentsPluginOptions {
  private final List<Agent> agents;
  private final Map<String, AgentFactory> dynamicAgents;
  private final String defaultAgent;
  private final ModelProvider modelProvider;
  private final AgentStore store;
  private final Set<String> taskQueues;
  private final int maxPayloadBytes;
  private final ArtifactStore artifactStore;
  private final List<DeltaListener> deltaListeners;
  private final Duration cancelCheckInterval;
  private final Duration deadlockDetectionTimeout;
  private final long transcriptCacheChars;
  private final SearchAttributeUpserts searchAttributeUpserts;
  private final List<ToolHook> toolHooks;
  private final Duration toolHookTimeout;
  private final AgentMetrics metrics;
  private final AgentTracer tracer;

  /**
   * Default bound of one tool result or model answer, serialized: well under Temporal's 2 MB
   * payload limit, so an oversized value fails clearly instead of being refused by the server.
   */
  public static final int DEFAULT_MAX_PAYLOAD_BYTES = 512 * 1024;

  /** Default of {@link Builder#setTranscriptCacheChars}: some 64 MB of heap at most. */
  public static final long DEFAULT_TRANSCRIPT_CACHE_CHARS = 32L * 1024 * 1024;

  /** Default of {@link Builder#setCancelCheckInterval}. */
  public static final Duration DEFAULT_CANCEL_CHECK_INTERVAL = Duration.ofMillis(500);

  /** Default of {@link Builder#setDeadlockDetectionTimeout}. */
  public static final Duration DEFAULT_DEADLOCK_DETECTION_TIMEOUT = Duration.ofSeconds(5);

  /** Default of {@link Builder#setToolHookTimeout}. */
  public static final Duration DEFAULT_TOOL_HOOK_TIMEOUT = Duration.ofSeconds(10);

  private AgentsPluginOptions(Builder builder) {
    this.agents = List.copyOf(builder.agents);
    this.dynamicAgents = Collections.unmodifiableMap(new LinkedHashMap<>(builder.dynamicAgents));
    this.defaultAgent =
        builder.defaultAgent != null
            ? builder.defaultAgent
            : agents.isEmpty()
                ? builder.dynamicAgents.keySet().iterator().next()
                : agents.get(0).name();
    this.modelProvider = builder.modelProvider;
    this.store = builder.store;
    this.taskQueues = Set.copyOf(builder.taskQueues);
    this.maxPayloadBytes = builder.maxPayloadBytes;
    this.artifactStore =
        builder.artifactStore != null ? builder.artifactStore : FileArtifactStore.defaultStore();
    this.deltaListeners = List.copyOf(builder.deltaListeners);
    this.cancelCheckInterval = builder.cancelCheckInterval;
    this.deadlockDetectionTimeout = builder.deadlockDetectionTimeout;
    this.transcriptCacheChars = builder.transcriptCacheChars;
    this.searchAttributeUpserts = builder.searchAttributeUpserts;
    this.toolHooks = List.copyOf(builder.toolHooks);
    this.metrics = builder.metrics;
    this.tracer = builder.tracer;
    this.toolHookTimeout = builder.toolHookTimeout;
  }

  /** The hooks of every agent's tool calls, in the order added (see {@link ToolHook}). */
  public List<ToolHook> getToolHooks() {
    return toolHooks;
  }

  /** How long one tool hook may take on one call. */
  public Duration getToolHookTimeout() {
    return toolHookTimeout;
  }

  /** Whether sessions upsert their search attributes (see {@link SearchAttributeUpserts}). */
  public SearchAttributeUpserts getSearchAttributeUpserts() {
    return searchAttributeUpserts;
  }

  /** Characters of transcripts a worker keeps for the next model turns (see the builder). */
  public long getTranscriptCacheChars() {
    return transcriptCacheChars;
  }

  /**
   * How long a streaming model turn may go without asking the server whether it was cancelled; null
   * leaves the worker's heartbeat throttling as it is.
   */
  public Duration getCancelCheckInterval() {
    return cancelCheckInterval;
  }

  /** What the workers report their agents' work to (default {@link AgentMetrics#NONE}). */
  public AgentMetrics getMetrics() {
    return metrics;
  }

  /** What opens the workers' model-turn and tool-call spans (default {@link AgentTracer#NONE}). */
  public AgentTracer getTracer() {
    return tracer;
  }

  /** The deadlock detection timeout the plugin sets on its workers. */
  public Duration getDeadlockDetectionTimeout() {
    return deadlockDetectionTimeout;
  }

  /**
   * Listeners of the text and reasoning deltas of the model turns this worker runs, in order added.
   */
  public List<DeltaListener> getDeltaListeners() {
    return deltaListeners;
  }

  /** Where attachment bytes are read from (default: files under {@code .agents/artifacts}). */
  public ArtifactStore getArtifactStore() {
    return artifactStore;
  }

  /** Largest tool result or model answer (serialized JSON bytes) an activity may return. */
  public int getMaxPayloadBytes() {
    return maxPayloadBytes;
  }

  /** A builder with every option at its default; add an agent and set a store before building. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** A builder that starts from {@code options}. */
  public static Builder newBuilder(AgentsPluginOptions options) {
    return new Builder(options);
  }

  /** A builder that starts from these options. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The agents, in the order they were added. */
  public List<Agent> getAgents() {
    return agents;
  }

  /** The dynamic agents, by name: each built per run from the run's configuration. */
  public Map<String, AgentFactory> getDynamicAgents() {
    return dynamicAgents;
  }

  /** The agent a session gets when it names none. */
  public String getDefaultAgent() {
    return defaultAgent;
  }

  /** Provider for agents that have none of their own; may be null if every agent has one. */
  public ModelProvider getModelProvider() {
    return modelProvider;
  }

  /** The store checkpoints are saved to. */
  public AgentStore getStore() {
    return store;
  }

  /** Task queues whose workers get the agent workflow and activities; empty means all. */
  public Set<String> getTaskQueues() {
    return taskQueues;
  }

  /** Builds {@link AgentsPluginOptions}. */
  public static final class Builder {
    private final List<Agent> agents = new ArrayList<>();
    private final Map<String, AgentFactory> dynamicAgents = new LinkedHashMap<>();
    private String defaultAgent;
    private ModelProvider modelProvider;
    private AgentStore store;
    private final List<String> taskQueues = new ArrayList<>();
    private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
    private ArtifactStore artifactStore;
    private Duration cancelCheckInterval = DEFAULT_CANCEL_CHECK_INTERVAL;
    private Duration deadlockDetectionTimeout = DEFAULT_DEADLOCK_DETECTION_TIMEOUT;
    private long transcriptCacheChars = DEFAULT_TRANSCRIPT_CACHE_CHARS;
    private SearchAttributeUpserts searchAttributeUpserts = SearchAttributeUpserts.WHEN_REGISTERED;
    private final List<ToolHook> toolHooks = new ArrayList<>();
    private Duration toolHookTimeout = DEFAULT_TOOL_HOOK_TIMEOUT;

    /**
     * Adds a hook that sees every tool call of every agent of this plugin before and after it runs;
     * the plugin's hooks run before the agent's own, in the order added (see {@link ToolHook}).
     */
    public Builder addToolHook(ToolHook hook) {
      toolHooks.add(Objects.requireNonNull(hook, "hook"));
      return this;
    }

    /**
     * How long one tool hook may take on one call (default {@link #DEFAULT_TOOL_HOOK_TIMEOUT}); a
     * hook that takes longer gives the call the error result {@code hook_timeout}.
     */
    public Builder setToolHookTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("toolHookTimeout must be positive, got " + timeout);
      }
      this.toolHookTimeout = timeout;
      return this;
    }

    /**
     * Whether sessions upsert their search attributes AgentName, AgentStatus, AgentPendingApprovals
     * and AgentParentSession, so Temporal's own tools can find them (default {@link
     * SearchAttributeUpserts#WHEN_REGISTERED}: if the namespace has them).
     */
    public Builder setSearchAttributeUpserts(SearchAttributeUpserts upserts) {
      this.searchAttributeUpserts = Objects.requireNonNull(upserts, "upserts");
      return this;
    }

    /**
     * Bounds how long a streaming model turn goes on after its run is cancelled (default 1 s): an
     * activity learns of a cancel from the answer to a heartbeat, and the SDK sends heartbeats at
     * most every 80% of the heartbeat timeout (8 s for model turns) unless the worker's maximum
     * heartbeat throttle interval is lower. The plugin lowers that maximum to this value on the
     * workers it registers on, which applies to every activity of those workers (one heartbeat
     * request a second at most per heartbeating activity); a lower value the worker already has is
     * kept. Null leaves the worker's setting alone.
     */
    public Builder setCancelCheckInterval(Duration interval) {
      if (interval != null && (interval.isNegative() || interval.isZero())) {
        throw new IllegalArgumentException("cancelCheckInterval must be positive, or null");
      }
      this.cancelCheckInterval = interval;
      return this;
    }

    /**
     * How long a workflow task may run workflow code without yielding before the SDK reports a
     * deadlock and fails the task (default {@link #DEFAULT_DEADLOCK_DETECTION_TIMEOUT}; the SDK's
     * own default is 1 s). The session workflow never blocks, but a worker whose cores are busy (a
     * JVM that has just started, a loaded machine) can take over a second for a task's first steps:
     * with 1 s such tasks fail on live workers, and after two failures in a row Temporal refuses
     * the session's updates until a task completes. The plugin sets this on the workers it
     * registers on where the worker's options leave the timeout unset; a value set there is kept.
     * Null leaves the worker's setting alone.
     *
     * <p>Unset means 0 in the SDK's {@code WorkerOptions}: options from {@code
     * WorkerOptions.newBuilder()...build()}, or none at all ({@code factory.newWorker(queue)}), get
     * this timeout. {@code WorkerOptions.getDefaultInstance()} and options built with {@code
     * validateAndBuildWithDefaults()} hold the SDK's defaults filled in, 1 s among them, which
     * cannot be told from a 1 s the team chose: that worker keeps 1 s.
     */
    public Builder setDeadlockDetectionTimeout(Duration timeout) {
      if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
        throw new IllegalArgumentException("deadlockDetectionTimeout must be positive, or null");
      }
      this.deadlockDetectionTimeout = timeout;
      return this;
    }

    /**
     * Bounds the transcripts each worker keeps after a model turn, in characters of texts,
     * arguments and results over all sessions (default {@link #DEFAULT_TRANSCRIPT_CACHE_CHARS}),
     * least recently used first out. The next turn of a session on the same worker uses its
     * transcript instead of reading the store, and may leave the checkpoint entries it carries for
     * a later write; a turn on a worker without it reads the store, or has the workflow write the
     * entries first. 0 keeps none: every turn reads the store.
     */
    public Builder setTranscriptCacheChars(long chars) {
      if (chars < 0) {
        throw new IllegalArgumentException("transcriptCacheChars must be 0 or more, got " + chars);
      }
      this.transcriptCacheChars = chars;
      return this;
    }

    /** Where attachment bytes live; default {@link FileArtifactStore#defaultStore()}. */
    public Builder setArtifactStore(ArtifactStore artifactStore) {
      this.artifactStore = Objects.requireNonNull(artifactStore, "artifactStore");
      return this;
    }

    private final List<DeltaListener> deltaListeners = new ArrayList<>();
    private AgentMetrics metrics = AgentMetrics.NONE;
    private AgentTracer tracer = AgentTracer.NONE;

    private Builder() {}

    private Builder(AgentsPluginOptions options) {
      agents.addAll(options.agents);
      dynamicAgents.putAll(options.dynamicAgents);
      defaultAgent = options.defaultAgent;
      modelProvider = options.modelProvider;
      store = options.store;
      taskQueues.addAll(options.taskQueues);
      maxPayloadBytes = options.maxPayloadBytes;
      artifactStore = options.artifactStore;
      deltaListeners.addAll(options.deltaListeners);
      cancelCheckInterval = options.cancelCheckInterval;
      deadlockDetectionTimeout = options.deadlockDetectionTimeout;
      transcriptCacheChars = options.transcriptCacheChars;
      searchAttributeUpserts = options.searchAttributeUpserts;
      toolHooks.addAll(options.toolHooks);
      toolHookTimeout = options.toolHookTimeout;
      metrics = options.metrics;
      tracer = options.tracer;
    }

    /**
     * Where the workers report model turns, tool calls, approvals, settled runs, drift, projection
     * writes and transcript cache hits (default {@link AgentMetrics#NONE}): for Micrometer, {@code
     * MicrometerAgentMetrics.of(registry)} of module {@code durable-agents-micrometer}.
     */
    public Builder setMetrics(AgentMetrics metrics) {
      this.metrics = Objects.requireNonNull(metrics, "metrics");
      return this;
    }

    /**
     * What opens a trace span around each model turn and tool call, on the activity's thread
     * (default {@link AgentTracer#NONE}): for OpenTelemetry, {@code
     * OpenTelemetryAgentTracer.of(openTelemetry)} of module {@code durable-agents-opentelemetry}.
     */
    public Builder setTracer(AgentTracer tracer) {
      this.tracer = Objects.requireNonNull(tracer, "tracer");
      return this;
    }

    /**
     * Adds a listener of the text and reasoning deltas of every model turn the workers of this
     * plugin execute. Listeners run on the model activity's thread, in the order added; see {@link
     * DeltaListener} for what they may and may not do.
     */
    public Builder addDeltaListener(DeltaListener listener) {
      deltaListeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * Bounds one tool result or model answer. A larger tool result is stored in the artifact store
     * and replaced by a {@link io.durableagents.workflow.internal.wire.StoredResults} reference
     * (or, when it cannot be stored, by the error result {@code {"error": "result_too_large"}}); a
     * larger model answer fails the run with {@code payload_too_large}. Never a retry storm, never
     * a silent truncation.
     */
    public Builder setMaxPayloadBytes(int maxPayloadBytes) {
      if (maxPayloadBytes < 1024 || maxPayloadBytes > 1_900_000) {
        throw new IllegalArgumentException(
            "maxPayloadBytes must be between 1 KiB and 1.9 MB (Temporal refuses payloads over 2 MB), got "
                + maxPayloadBytes);
      }
      this.maxPayloadBytes = maxPayloadBytes;
      return this;
    }

    /** Adds an agent the plugin's workers serve; the first one added is the default one. */
    public Builder addAgent(Agent agent) {
      agents.add(Objects.requireNonNull(agent, "agent"));
      return this;
    }

    /**
     * Adds a dynamic agent: {@code factory} builds it for each run from the run configuration given
     * with the message that starts the run (see {@link AgentFactory}). When no static agent is
     * added, the first dynamic one is the default.
     */
    public Builder addDynamicAgent(String name, AgentFactory factory) {
      Objects.requireNonNull(name, "name");
      if (dynamicAgents.put(name, Objects.requireNonNull(factory, "factory")) != null) {
        throw new IllegalArgumentException("Two dynamic agents named '" + name + "'.");
      }
      return this;
    }

    /** The agent of sessions that name none; defaults to the first agent added. */
    public Builder setDefaultAgent(String name) {
      this.defaultAgent = Objects.requireNonNull(name, "name");
      return this;
    }

    /** The model provider of agents that have none of their own. */
    public Builder setModelProvider(ModelProvider modelProvider) {
      this.modelProvider = Objects.requireNonNull(modelProvider, "modelProvider");
      return this;
    }

    /**
     * The projection the workers write checkpoints to and read transcripts from; required. It must
     * be a store that {@link io.durableagents.store.AgentStores#open} returned.
     */
    public Builder setStore(AgentStore store) {
      this.store = CheckpointStore.of(Objects.requireNonNull(store, "store"));
      return this;
    }

    /** Limits registration to workers of these task queues (default: every worker). */
    public Builder setTaskQueues(String... taskQueues) {
      this.taskQueues.clear();
      for (String queue : taskQueues) {
        this.taskQueues.add(Objects.requireNonNull(queue, "taskQueue"));
      }
      return this;
    }

    /**
     * The options; throws {@code IllegalStateException} without an agent or a store, or when the
     * default agent is none of the agents.
     */
    public AgentsPluginOptions build() {
      if (agents.isEmpty() && dynamicAgents.isEmpty()) {
        throw new IllegalStateException("AgentsPluginOptions needs at least one agent.");
      }
      if (store == null) {
        throw new IllegalStateException(
            "AgentsPluginOptions needs a store, e.g. AgentStores.open(\"jdbc:sqlite:.agents/projection.db\").");
      }
      if (defaultAgent != null
          && !dynamicAgents.containsKey(defaultAgent)
          && agents.stream().noneMatch(a -> a.name().equals(defaultAgent))) {
        throw new IllegalStateException("Default agent '" + defaultAgent + "' is not registered.");
      }
      if (modelProvider == null && agents.stream().anyMatch(a -> a.modelProvider() == null)) {
        throw new IllegalStateException(
            "Agents without their own model provider need the plugin's modelProvider.");
      }
      return new AgentsPluginOptions(this);
    }
  }
}
