package io.durableagents.session;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * A wait point: a gated tool call waiting for a human decision. The approval id is derived from the
 * call's place in the session (its first workflow run, run, the call's position and id), so it is
 * stable across replays and across paths to the same pause, and new for every pause. Sessions
 * started before 0.2.0 drew it from {@code Workflow.randomUUID()}.
 *
 * @param requestedAt epoch milliseconds
 * @param expiresAt epoch milliseconds; past it the call gets {@code {"error": "approval_expired"}}
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Approval(
    @JsonProperty("approvalId") String approvalId,
    @JsonProperty("toolCallId") String toolCallId,
    @JsonProperty("toolName") String toolName,
    @JsonProperty("input") JsonNode input,
    @JsonProperty("requestedAt") long requestedAt,
    @JsonProperty("expiresAt") long expiresAt) {}
