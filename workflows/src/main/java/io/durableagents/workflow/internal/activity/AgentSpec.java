package io.durableagents.workflow.internal.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * An agent as the workflow sees it: learned from a recorded activity result, so control flow never
 * depends on worker configuration read at replay time. {@code searchAttributes} says whether the
 * resolving worker found the session search attributes registered (see {@link
 * io.durableagents.workflow.SessionSearchAttributes}); results recorded before it existed read
 * false, so their sessions replay without upserts. {@code modelTaskQueue} and {@code modelRetry}:
 * where model turns run and how they are retried, when the agent sets them (null: the workflow's
 * queue and the default policy of {@code modelMaxAttempts}). {@code idleTimeoutMs}: how long the
 * session waits for its next send before it closes itself (0, as in results recorded before it
 * existed: {@link #DEFAULT_IDLE_TIMEOUT_MS}). {@code concurrencyKey}: the key the agent's default
 * gave the run from its trigger (null: none).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AgentSpec(
    @JsonProperty("name") String name,
    @JsonProperty("model") String model,
    @JsonProperty("fingerprint") String fingerprint,
    @JsonProperty("maxSteps") int maxSteps,
    @JsonProperty("toolConcurrency") int toolConcurrency,
    @JsonProperty("modelTimeoutMs") long modelTimeoutMs,
    @JsonProperty("modelMaxAttempts") int modelMaxAttempts,
    @JsonProperty("tools") List<ToolSpec> tools,
    @JsonProperty("approvalTimeoutMs") long approvalTimeoutMs,
    @JsonProperty("notifier") boolean notifier,
    @JsonProperty("maxTokens") long maxTokens,
    @JsonProperty("runTimeoutMs") long runTimeoutMs,
    @JsonProperty("localModel") boolean localModel,
    @JsonProperty("searchAttributes") boolean searchAttributes,
    @JsonProperty("modelTaskQueue") String modelTaskQueue,
    @JsonProperty("modelRetry") RetrySpec modelRetry,
    @JsonProperty("idleTimeoutMs") long idleTimeoutMs,
    @JsonProperty("concurrencyKey") String concurrencyKey) {

  /** Default wait for a decision before a gated call gets {@code approval_expired}. */
  public static final long DEFAULT_APPROVAL_TIMEOUT_MS = 7L * 24 * 3600 * 1000;

  /** Default wait of an idle session for its next send before it closes itself: 30 days. */
  public static final long DEFAULT_IDLE_TIMEOUT_MS = 30L * 24 * 3600 * 1000;

  public AgentSpec {
    tools = tools == null ? List.of() : List.copyOf(tools);
    approvalTimeoutMs = approvalTimeoutMs <= 0 ? DEFAULT_APPROVAL_TIMEOUT_MS : approvalTimeoutMs;
    idleTimeoutMs = idleTimeoutMs <= 0 ? DEFAULT_IDLE_TIMEOUT_MS : idleTimeoutMs;
  }

  /** This spec, saying whether the session may upsert its search attributes. */
  public AgentSpec withSearchAttributes(boolean registered) {
    return new AgentSpec(
        name,
        model,
        fingerprint,
        maxSteps,
        toolConcurrency,
        modelTimeoutMs,
        modelMaxAttempts,
        tools,
        approvalTimeoutMs,
        notifier,
        maxTokens,
        runTimeoutMs,
        localModel,
        registered,
        modelTaskQueue,
        modelRetry,
        idleTimeoutMs,
        concurrencyKey);
  }

  /** This spec with {@code key} as the run's concurrency key. */
  public AgentSpec withConcurrencyKey(String key) {
    return new AgentSpec(
        name,
        model,
        fingerprint,
        maxSteps,
        toolConcurrency,
        modelTimeoutMs,
        modelMaxAttempts,
        tools,
        approvalTimeoutMs,
        notifier,
        maxTokens,
        runTimeoutMs,
        localModel,
        searchAttributes,
        modelTaskQueue,
        modelRetry,
        idleTimeoutMs,
        key);
  }

  /** The tool of that name, or null when the agent has none. */
  public ToolSpec tool(String toolName) {
    for (ToolSpec tool : tools) {
      if (tool.name().equals(toolName)) {
        return tool;
      }
    }
    return null;
  }
}
