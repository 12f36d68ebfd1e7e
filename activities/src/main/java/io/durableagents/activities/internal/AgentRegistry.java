package io.durableagents.activities.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.agent.Agent;
import io.durableagents.agent.AgentFactory;
import io.durableagents.agent.Execution;
import io.durableagents.agent.SubAgent;
import io.durableagents.model.ModelProvider;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.internal.activity.AgentSpec;
import io.durableagents.workflow.internal.activity.RetrySpec;
import io.durableagents.workflow.internal.activity.ToolSpec;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The agents a worker serves: static ones by name, and dynamic ones built per run from the run's
 * configuration by their factory.
 */
public final class AgentRegistry {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final Map<String, Agent> agents = new LinkedHashMap<>();
  private final Map<String, AgentFactory> dynamicAgents;
  private final String defaultAgent;
  private final ModelProvider defaultProvider;

  public AgentRegistry(List<Agent> agents, String defaultAgent, ModelProvider defaultProvider) {
    this(agents, Map.of(), defaultAgent, defaultProvider);
  }

  public AgentRegistry(
      List<Agent> agents,
      Map<String, AgentFactory> dynamicAgents,
      String defaultAgent,
      ModelProvider defaultProvider) {
    for (Agent agent : agents) {
      if (this.agents.put(agent.name(), agent) != null) {
        throw new IllegalArgumentException("Two agents named '" + agent.name() + "'.");
      }
      if (dynamicAgents.containsKey(agent.name())) {
        throw new IllegalArgumentException(
            "'" + agent.name() + "' is both a static and a dynamic agent.");
      }
    }
    for (Agent agent : agents) {
      serveSubAgents(agent, dynamicAgents);
    }
    this.dynamicAgents = new LinkedHashMap<>(dynamicAgents);
    this.defaultAgent = defaultAgent;
    this.defaultProvider = defaultProvider;
  }

  /**
   * Serves the sub-agents of {@code agent} (and theirs) too: a call's child session runs them by
   * name. A sub-agent whose name another agent of the worker has must have its definition.
   */
  private void serveSubAgents(Agent agent, Map<String, AgentFactory> dynamicAgents) {
    for (SubAgent subAgent : agent.subAgents()) {
      Agent served = agents.get(subAgent.name());
      if (served == null) {
        if (dynamicAgents.containsKey(subAgent.name())) {
          throw new IllegalArgumentException(
              "Sub-agent '"
                  + subAgent.name()
                  + "' of agent '"
                  + agent.name()
                  + "' has the name of a dynamic agent.");
        }
        agents.put(subAgent.name(), subAgent.agent());
        serveSubAgents(subAgent.agent(), dynamicAgents);
      } else if (served != subAgent.agent()
          && !AgentDefinition.of(served, null)
              .fingerprint()
              .equals(AgentDefinition.of(subAgent.agent(), null).fingerprint())) {
        throw new IllegalArgumentException(
            "Sub-agent '"
                + subAgent.name()
                + "' of agent '"
                + agent.name()
                + "' differs from the agent of that name the worker serves; give one of them"
                + " another name.");
      }
    }
  }

  /**
   * The agent of that name (null: the default agent) for a run without configuration; a
   * non-retryable failure if unknown.
   */
  public Agent agent(String name) {
    return agent(name, null);
  }

  /**
   * The agent of that name (null: the default agent) for a run with {@code runConfig} (null: none):
   * a static agent as registered, a dynamic one built by its factory. Fails with {@code
   * unknown_agent}, or {@code invalid_input} when the factory refuses the configuration.
   */
  public Agent agent(String name, JsonNode runConfig) {
    String wanted = name == null || name.isBlank() ? defaultAgent : name;
    Agent agent = wanted == null ? null : agents.get(wanted);
    if (agent != null) {
      return agent;
    }
    AgentFactory factory = wanted == null ? null : dynamicAgents.get(wanted);
    if (factory == null) {
      List<String> known = new ArrayList<>(agents.keySet());
      known.addAll(dynamicAgents.keySet());
      throw ApplicationFailure.newNonRetryableFailure(
          "No agent named '" + wanted + "' on this worker; known agents: " + known,
          FailureTypes.UNKNOWN_AGENT);
    }
    return built(wanted, factory, runConfig);
  }

  private static Agent built(String name, AgentFactory factory, JsonNode runConfig) {
    ObjectNode config =
        runConfig instanceof ObjectNode object ? object.deepCopy() : MAPPER.createObjectNode();
    Agent agent;
    try {
      agent = factory.create(config);
    } catch (IllegalArgumentException refused) {
      throw ApplicationFailure.newNonRetryableFailureWithCause(
          "Dynamic agent '" + name + "' refuses the run configuration: " + refused.getMessage(),
          FailureTypes.INVALID_INPUT,
          refused);
    }
    if (agent == null || !name.equals(agent.name())) {
      throw ApplicationFailure.newNonRetryableFailure(
          "The factory of dynamic agent '"
              + name
              + "' built "
              + (agent == null ? "no agent" : "an agent named '" + agent.name() + "'")
              + "; it must build one named '"
              + name
              + "'.",
          FailureTypes.AGENT_UNAVAILABLE);
    }
    return agent;
  }

  /** The agent registered as {@code name} itself; null when there is none or it is dynamic. */
  Agent registered(String name) {
    return name == null ? null : agents.get(name);
  }

  /** Whether {@code name} is built per run by a factory (its definition may change per call). */
  boolean isDynamic(String name) {
    return dynamicAgents.containsKey(name);
  }

  public ModelProvider provider(Agent agent) {
    ModelProvider provider =
        agent.modelProvider() != null ? agent.modelProvider() : defaultProvider;
    if (provider == null) {
      throw ApplicationFailure.newNonRetryableFailure(
          "Agent '" + agent.name() + "' has no model provider and the plugin has no default.",
          FailureTypes.MODEL_REQUEST_INVALID);
    }
    return provider;
  }

  /** The spec of the named agent as registered (runs of histories recorded before 0.2). */
  public AgentSpec spec(String name) {
    Agent agent = agent(name);
    return spec(agent, AgentDefinition.of(agent, null), fingerprint(agent));
  }

  /**
   * The spec of a run under {@code definition}: its budgets and tools from the definition, how they
   * run from the worker's {@code agent} (a tool the worker no longer has gets the defaults; its
   * calls find it unavailable).
   */
  static AgentSpec spec(Agent agent, AgentDefinition definition, String fingerprint) {
    List<ToolSpec> tools = new ArrayList<>();
    for (AgentDefinition.ToolDeclaration declared : definition.tools()) {
      if (declared.agent() != null) {
        tools.add(
            ToolSpec.subAgent(declared.name(), declared.agent(), declared.agentFingerprint()));
        continue;
      }
      Tool tool = agent.tool(declared.name());
      tools.add(
          tool == null
              ? new ToolSpec(declared.name(), Duration.ofMinutes(1).toMillis(), 1)
              : new ToolSpec(
                  tool.name(),
                  tool.timeout().toMillis(),
                  tool.maxAttempts(),
                  tool.execution() == Execution.LOCAL_ACTIVITY,
                  tool.taskQueue(),
                  RetrySpec.of(tool.retryOptions())));
    }
    return new AgentSpec(
        agent.name(),
        definition.model(),
        fingerprint,
        definition.maxSteps(),
        agent.toolConcurrency(),
        agent.modelTimeout().toMillis(),
        agent.modelMaxAttempts(),
        tools,
        agent.approvalTimeout().toMillis(),
        agent.approvalNotifier() != null,
        definition.maxTokens(),
        definition.runTimeoutMs(),
        agent.modelExecution() == Execution.LOCAL_ACTIVITY,
        false,
        agent.taskQueue(),
        RetrySpec.of(agent.retryOptions()),
        agent.idleTimeout().toMillis(),
        null);
  }

  /**
   * The fingerprint runs recorded before definitions were (0.1.0): a hash of model, instructions
   * and tools; kept so those runs replay with the spec they recorded.
   */
  static String fingerprint(Agent agent) {
    ObjectNode canonical = MAPPER.createObjectNode();
    canonical.put("model", agent.model());
    canonical.put("instructions", agent.instructions());
    ArrayNode tools = canonical.putArray("tools");
    for (Tool tool : agent.tools()) {
      ObjectNode node = tools.addObject();
      node.put("name", tool.name());
      node.put("description", tool.description());
      node.set("schema", tool.inputSchema());
    }
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      byte[] hash = digest.digest(canonical.toString().getBytes(StandardCharsets.UTF_8));
      return "sha256:" + HexFormat.of().formatHex(hash, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
