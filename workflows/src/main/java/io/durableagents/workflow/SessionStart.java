package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Input of the session workflow. {@code agent} may be null for the worker's default agent.
 * {@code maxSteps} overrides the agent's per-run budget when positive. {@code fork} is set for a
 * session forked from another session's history entry.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SessionStart(
    @JsonProperty("sessionId") String sessionId,
    @JsonProperty("agent") String agent,
    @JsonProperty("maxSteps") Integer maxSteps,
    @JsonProperty("fork") ForkSource fork) {

  public SessionStart(String sessionId, String agent, Integer maxSteps) {
    this(sessionId, agent, maxSteps, null);
  }
}
