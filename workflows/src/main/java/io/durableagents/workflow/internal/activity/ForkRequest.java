package io.durableagents.workflow.internal.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.durableagents.workflow.ForkSource;

/** Asks the worker to copy a history entry, patched, into a new session's transcript. */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ForkRequest(
    @JsonProperty("sessionId") String sessionId,
    @JsonProperty("executionId") String executionId,
    @JsonProperty("agent") String agent,
    @JsonProperty("source") ForkSource source,
    @JsonProperty("savedAt") long savedAt) {}
