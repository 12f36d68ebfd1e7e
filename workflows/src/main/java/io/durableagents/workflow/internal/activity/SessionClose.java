package io.durableagents.workflow.internal.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

/** The end of a session's workflow, as the store records it (see {@link LifecycleActivities}). */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SessionClose(
    @JsonProperty("sessionId") String sessionId,
    @JsonProperty("executionId") String executionId,
    @JsonProperty("closedAt") long closedAt,
    @JsonProperty("delete") boolean delete,
    @JsonProperty("keepHistory") boolean keepHistory) {}
