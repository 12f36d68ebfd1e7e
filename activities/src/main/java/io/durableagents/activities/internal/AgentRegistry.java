package io.durableagents.activities.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.agent.Agent;
import io.durableagents.agent.Execution;
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
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The agents a worker serves, their specs and fingerprints. */
public final class AgentRegistry {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final Map<String, Agent> agents = new LinkedHashMap<>();
  private final String defaultAgent;
  private final ModelProvider defaultProvider;

  public AgentRegistry(List<Agent> agents, String defaultAgent, ModelProvider defaultProvider) {
    for (Agent agent : agents) {
      if (this.agents.put(agent.name(), agent) != null) {
        throw new IllegalArgumentException("Two agents named '" + agent.name() + "'.");
      }
    }
    this.defaultAgent = defaultAgent;
    this.defaultProvider = defaultProvider;
  }

  /** The agent of that name (null: the default agent); a non-retryable failure if unknown. */
  public Agent agent(String name) {
    String wanted = name == null || name.isBlank() ? defaultAgent : name;
    Agent agent = wanted == null ? null : agents.get(wanted);
    if (agent == null) {
      throw ApplicationFailure.newNonRetryableFailure(
          "No agent named '" + wanted + "' on this worker; known agents: " + agents.keySet(),
          FailureTypes.UNKNOWN_AGENT);
    }
    return agent;
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

  public AgentSpec spec(String name) {
    Agent agent = agent(name);
    List<ToolSpec> tools = new ArrayList<>();
    for (Tool tool : agent.tools()) {
      tools.add(
          new ToolSpec(
              tool.name(),
              tool.timeout().toMillis(),
              tool.maxAttempts(),
              tool.execution() == Execution.LOCAL_ACTIVITY,
              tool.taskQueue(),
              RetrySpec.of(tool.retryOptions())));
    }
    return new AgentSpec(
        agent.name(),
        agent.model(),
        fingerprint(agent),
        agent.maxSteps(),
        agent.toolConcurrency(),
        agent.modelTimeout().toMillis(),
        agent.modelMaxAttempts(),
        tools,
        agent.approvalTimeout().toMillis(),
        agent.approvalNotifier() != null,
        agent.maxTokens(),
        agent.runTimeout() == null ? 0 : agent.runTimeout().toMillis(),
        agent.modelExecution() == Execution.LOCAL_ACTIVITY,
        false,
        agent.taskQueue(),
        RetrySpec.of(agent.retryOptions()));
  }

  /** Hash of what changes an agent's behaviour: model, instructions and tools. */
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
