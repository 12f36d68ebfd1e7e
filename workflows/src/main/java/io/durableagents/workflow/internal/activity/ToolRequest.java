package io.durableagents.workflow.internal.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.workflow.TriggerEnvelope;

/**
 * One tool call to execute. {@code toolCallId} is the model's id of the call, unique only within
 * the session's conversation; {@code idempotencyKey} is the key for the call's side effects, unique
 * across sessions and forks (see {@link IdempotencyKeys}; absent in requests of older workflow
 * code). {@code trigger} is the envelope that started the run, when a trigger did. {@code
 * businessState} is the session's business state as the call starts (null when the session has
 * none). {@code fingerprint} names the definition the run recorded (see {@link AgentSpec}), so a
 * worker under another definition can refuse the call when the agent's drift policy says so.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ToolRequest(
    @JsonProperty("sessionId") String sessionId,
    @JsonProperty("agent") String agent,
    @JsonProperty("run") int run,
    @JsonProperty("toolCallId") String toolCallId,
    @JsonProperty("toolName") String toolName,
    @JsonProperty("arguments") JsonNode arguments,
    @JsonProperty("trigger") TriggerEnvelope trigger,
    @JsonProperty("businessState") JsonNode businessState,
    @JsonProperty("idempotencyKey") String idempotencyKey,
    @JsonProperty("fingerprint") String fingerprint) {

  public ToolRequest(
      String sessionId,
      String agent,
      int run,
      String toolCallId,
      String toolName,
      JsonNode arguments,
      TriggerEnvelope trigger,
      JsonNode businessState) {
    this(
        sessionId, agent, run, toolCallId, toolName, arguments, trigger, businessState, null, null);
  }

  public ToolRequest(
      String sessionId,
      String agent,
      int run,
      String toolCallId,
      String toolName,
      JsonNode arguments) {
    this(sessionId, agent, run, toolCallId, toolName, arguments, null, null, null, null);
  }
}
