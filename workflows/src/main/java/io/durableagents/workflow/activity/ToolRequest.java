package io.durableagents.workflow.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.workflow.TriggerEnvelope;

/**
 * One tool call to execute; {@code toolCallId} is the idempotency key for its side effects.
 * {@code trigger} is the envelope that started the run, when a trigger did. {@code businessState}
 * is the session's business state as the call starts (null when the session has none).
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
    @JsonProperty("businessState") JsonNode businessState) {

  public ToolRequest(
      String sessionId, String agent, int run, String toolCallId, String toolName, JsonNode arguments) {
    this(sessionId, agent, run, toolCallId, toolName, arguments, null, null);
  }
}
