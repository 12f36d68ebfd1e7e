package io.durableagents.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Objects;

/**
 * Another agent that an agent can hand a task to ({@link Agent.Builder#addSubAgent}). The model
 * sees it as a tool named after the agent, with {@link #description()} and one argument, {@code
 * task}. A call runs the sub-agent as a child session: its own transcript, checkpoints and
 * approvals, within what is left of the calling run's budgets; its answer is the call's result.
 */
public record SubAgent(Agent agent, String description) {

  /** The input every sub-agent takes: the task, in the calling model's words. */
  public static final String INPUT_SCHEMA =
      "{\"type\":\"object\",\"properties\":{\"task\":{\"type\":\"string\",\"description\":"
          + "\"The task for this agent, with everything it needs to know.\"}},"
          + "\"required\":[\"task\"],\"additionalProperties\":false}";

  private static final JsonNode SCHEMA = parse(INPUT_SCHEMA);

  /** Refuses a null agent or description, and a blank description (the model chooses by it). */
  public SubAgent {
    Objects.requireNonNull(agent, "agent");
    Objects.requireNonNull(description, "description");
    if (description.isBlank()) {
      throw new IllegalArgumentException(
          "Sub-agent '" + agent.name() + "' needs a description: the model chooses by it.");
    }
  }

  /** The name the model calls the sub-agent by: the agent's. */
  public String name() {
    return agent.name();
  }

  /** {@link #INPUT_SCHEMA} as JSON. */
  public JsonNode inputSchema() {
    return SCHEMA.deepCopy();
  }

  private static JsonNode parse(String json) {
    try {
      return new ObjectMapper().readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
