package io.durableagents.workflow.internal.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

/** A session and the workflow execution (its first run id) that asks about it. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SessionRef(
    @JsonProperty("sessionId") String sessionId, @JsonProperty("executionId") String executionId) {}
