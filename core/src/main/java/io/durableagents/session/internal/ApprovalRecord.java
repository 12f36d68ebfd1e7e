package io.durableagents.session.internal;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.durableagents.session.Approval;
import io.durableagents.session.ApprovalStatus;

/**
 * An approval as the projection stores it: the wait point plus its state.
 *
 * @param status where the approval stands
 * @param decidedAt epoch milliseconds, 0 while pending
 * @param notifiedAt epoch milliseconds the notifier accepted it, 0 if not (yet) notified
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ApprovalRecord(
    @JsonProperty("approval") Approval approval,
    @JsonProperty("run") int run,
    @JsonProperty("step") int step,
    @JsonProperty("status") ApprovalStatus status,
    @JsonProperty("decidedAt") long decidedAt,
    @JsonProperty("decidedBy") String decidedBy,
    @JsonProperty("note") String note,
    @JsonProperty("notifiedAt") long notifiedAt) {}
