package io.durableagents.workflow.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * The one result of a tool call. {@code error} marks a structured error result ({@code {"error":
 * ..., "message": ...}}) that goes back to the model like any other result.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ToolOutcome(@JsonProperty("result") JsonNode result, @JsonProperty("error") boolean error) {}
