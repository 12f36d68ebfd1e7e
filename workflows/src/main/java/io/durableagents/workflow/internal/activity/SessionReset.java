package io.durableagents.workflow.internal.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Moves a session back to its history entry {@code step} for the workflow execution {@code
 * executionId} (its first run id): the later entries stay, marked {@code supersededBy}.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SessionReset(
    @JsonProperty("sessionId") String sessionId,
    @JsonProperty("executionId") String executionId,
    @JsonProperty("step") int step,
    @JsonProperty("supersededBy") String supersededBy) {}
