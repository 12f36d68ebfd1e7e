package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Usage;
import io.durableagents.session.Approval;
import io.durableagents.session.RunStatus;

/**
 * What the {@code status} query answers: where the session is, without the transcript. {@code
 * businessState} is the state the session's tools keep, or null when they keep none.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SessionStatus(
    @JsonProperty("sessionId") String sessionId,
    @JsonProperty("agent") String agent,
    @JsonProperty("status") RunStatus status,
    @JsonProperty("run") int run,
    @JsonProperty("checkpointStep") int checkpointStep,
    @JsonProperty("messageCount") int messageCount,
    @JsonProperty("usage") Usage usage,
    @JsonProperty("lastResult") RunResult lastResult,
    @JsonProperty("approval") Approval approval,
    @JsonProperty("businessState") JsonNode businessState) {}
