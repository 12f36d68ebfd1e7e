package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

/** A tool call of a run together with its one recorded result. */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ToolCallRecord(
    @JsonProperty("id") String id,
    @JsonProperty("name") String name,
    @JsonProperty("arguments") JsonNode arguments,
    @JsonProperty("result") JsonNode result) {}
