package io.durableagents.model;

import com.fasterxml.jackson.databind.JsonNode;

/** A tool as a model provider presents it to the model. */
public record ToolDefinition(String name, String description, JsonNode inputSchema) {}
