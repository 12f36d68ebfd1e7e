package io.durableagents.conversation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

/** A tool call requested by the model: the call id is the idempotency key handed to the tool. */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ToolCall(
    @JsonProperty("id") String id,
    @JsonProperty("name") String name,
    @JsonProperty("arguments") JsonNode arguments) {}
