package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/** A human decision on an approval: the payload of signal {@code decide} and update {@code approve}. */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Decision(
    @JsonProperty("approvalId") String approvalId,
    @JsonProperty("approved") boolean approved,
    @JsonProperty("note") String note,
    @JsonProperty("decidedBy") String decidedBy) {}
