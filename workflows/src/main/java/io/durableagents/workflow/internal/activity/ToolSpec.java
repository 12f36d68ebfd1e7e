package io.durableagents.workflow.internal.activity;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What the workflow needs to know of a tool to schedule it: its name and how its activity is run
 * ({@code local}: as a local activity; {@code taskQueue}: another queue than the workflow's, null
 * for the workflow's; {@code retry}: the tool's own retry options, null for the default policy of
 * {@code maxAttempts}). Schemas and code stay on the worker side. A sub-agent's declaration has
 * {@code agent} (its name) and {@code agentFingerprint} (the definition the run recorded for it):
 * its calls run as a child session, not an activity.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ToolSpec(
    @JsonProperty("name") String name,
    @JsonProperty("startToCloseTimeoutMs") long startToCloseTimeoutMs,
    @JsonProperty("maxAttempts") int maxAttempts,
    @JsonProperty("local") boolean local,
    @JsonProperty("taskQueue") String taskQueue,
    @JsonProperty("retry") RetrySpec retry,
    @JsonProperty("agent") String agent,
    @JsonProperty("agentFingerprint") String agentFingerprint) {

  public ToolSpec(String name, long startToCloseTimeoutMs, int maxAttempts) {
    this(name, startToCloseTimeoutMs, maxAttempts, false, null, null);
  }

  public ToolSpec(
      String name,
      long startToCloseTimeoutMs,
      int maxAttempts,
      boolean local,
      String taskQueue,
      RetrySpec retry) {
    this(name, startToCloseTimeoutMs, maxAttempts, local, taskQueue, retry, null, null);
  }

  /** The declaration of sub-agent {@code agent}, shown to the model as tool {@code name}. */
  public static ToolSpec subAgent(String name, String agent, String agentFingerprint) {
    return new ToolSpec(name, 0, 1, false, null, null, agent, agentFingerprint);
  }

  /** Whether calls of this tool run a sub-agent. */
  @JsonIgnore
  public boolean isSubAgent() {
    return agent != null;
  }
}
