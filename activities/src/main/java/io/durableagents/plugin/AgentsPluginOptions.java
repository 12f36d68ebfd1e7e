package io.durableagents.plugin;

import io.durableagents.agent.Agent;
import io.durableagents.model.ModelProvider;
import io.durableagents.store.AgentStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What {@link AgentsPlugin} registers: the agents, the default model provider and the store of
 * transcripts and checkpoints. Immutable; build with {@link #newBuilder()}.
 */
public final class AgentsPluginOptions {
  private final List<Agent> agents;
  private final String defaultAgent;
  private final ModelProvider modelProvider;
  private final AgentStore store;
  private final Set<String> taskQueues;

  private AgentsPluginOptions(Builder builder) {
    this.agents = List.copyOf(builder.agents);
    this.defaultAgent = builder.defaultAgent != null ? builder.defaultAgent : agents.get(0).name();
    this.modelProvider = builder.modelProvider;
    this.store = builder.store;
    this.taskQueues = Set.copyOf(builder.taskQueues);
  }

  public static Builder newBuilder() {
    return new Builder();
  }

  public List<Agent> agents() {
    return agents;
  }

  /** The agent a session gets when it names none. */
  public String defaultAgent() {
    return defaultAgent;
  }

  /** Provider for agents that have none of their own; may be null if every agent has one. */
  public ModelProvider modelProvider() {
    return modelProvider;
  }

  public AgentStore store() {
    return store;
  }

  /** Task queues whose workers get the agent workflow and activities; empty means all. */
  public Set<String> taskQueues() {
    return taskQueues;
  }

  public static final class Builder {
    private final List<Agent> agents = new ArrayList<>();
    private String defaultAgent;
    private ModelProvider modelProvider;
    private AgentStore store;
    private final List<String> taskQueues = new ArrayList<>();

    private Builder() {}

    public Builder addAgent(Agent agent) {
      agents.add(Objects.requireNonNull(agent, "agent"));
      return this;
    }

    /** The agent of sessions that name none; defaults to the first agent added. */
    public Builder defaultAgent(String name) {
      this.defaultAgent = Objects.requireNonNull(name, "name");
      return this;
    }

    public Builder modelProvider(ModelProvider modelProvider) {
      this.modelProvider = Objects.requireNonNull(modelProvider, "modelProvider");
      return this;
    }

    public Builder store(AgentStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /** Limits registration to workers of these task queues (default: every worker). */
    public Builder taskQueues(String... taskQueues) {
      for (String queue : taskQueues) {
        this.taskQueues.add(Objects.requireNonNull(queue, "taskQueue"));
      }
      return this;
    }

    public AgentsPluginOptions build() {
      if (agents.isEmpty()) {
        throw new IllegalStateException("AgentsPluginOptions needs at least one agent.");
      }
      if (store == null) {
        throw new IllegalStateException(
            "AgentsPluginOptions needs a store, e.g. AgentStores.open(\"jdbc:sqlite:.agents/projection.db\").");
      }
      if (defaultAgent != null && agents.stream().noneMatch(a -> a.name().equals(defaultAgent))) {
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
