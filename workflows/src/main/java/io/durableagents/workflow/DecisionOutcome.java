package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.durableagents.session.ApprovalStatus;

/**
 * What the {@code approve} update answers once the decision is accepted: {@code outcome} is
 * approved or rejected.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DecisionOutcome(
    @JsonProperty("approvalId") String approvalId,
    @JsonProperty("toolCallId") String toolCallId,
    @JsonProperty("toolName") String toolName,
    @JsonProperty("outcome") ApprovalStatus outcome) {}
