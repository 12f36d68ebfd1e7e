package io.durableagents.workflow.internal.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.durableagents.workflow.Limits;

/**
 * A human decision on an approval: the payload of signal {@link AgentSessionWorkflow#decide decide}
 * and update {@link AgentSessionWorkflow#approve approve}. {@code approved} is required: a payload
 * without it is not read as a rejection. Limits: approval id, note and {@code decidedBy} lengths
 * (see {@link Limits}).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Decision(
    @JsonProperty("approvalId") String approvalId,
    @JsonProperty(value = "approved", required = true) boolean approved,
    @JsonProperty("note") String note,
    @JsonProperty("decidedBy") String decidedBy) {}
