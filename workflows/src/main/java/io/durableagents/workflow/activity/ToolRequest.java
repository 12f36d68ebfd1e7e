package io.durableagents.workflow.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

/** One tool call to execute; {@code toolCallId} is the idempotency key for its side effects. */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ToolRequest(
    @JsonProperty("sessionId") String sessionId,
    @JsonProperty("agent") String agent,
    @JsonProperty("run") int run,
    @JsonProperty("toolCallId") String toolCallId,
    @JsonProperty("toolName") String toolName,
    @JsonProperty("arguments") JsonNode arguments) {}
