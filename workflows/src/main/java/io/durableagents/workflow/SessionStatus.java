package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/** What the {@code status} query answers: where the session is, without the transcript. */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SessionStatus(
    @JsonProperty("sessionId") String sessionId,
    @JsonProperty("agent") String agent,
    @JsonProperty("status") String status,
    @JsonProperty("run") int run,
    @JsonProperty("checkpointStep") int checkpointStep,
    @JsonProperty("messageCount") int messageCount,
    @JsonProperty("usage") Usage usage,
    @JsonProperty("lastResult") RunResult lastResult,
    @JsonProperty("approval") Approval approval) {}
