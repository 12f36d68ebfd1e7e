package io.durableagents.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.session.ApprovalStatus;

/**
 * An approval as the projection keeps it, for back-office inboxes: a gated tool call that waits (or
 * waited) for a human decision.
 *
 * @param input the tool call's arguments
 * @param status {@code pending}, {@code approved}, {@code rejected}, {@code expired} or {@code
 *     cancelled}
 * @param requestedAt epoch milliseconds (UTC)
 * @param expiresAt epoch milliseconds (UTC); past it the call gets {@code {"error":
 *     "approval_expired"}}
 * @param decidedAt epoch milliseconds (UTC), 0 while pending
 * @param decidedBy who decided, or null
 * @param note the decision's note, or null
 * @param notifiedAt epoch milliseconds (UTC) the agent's notifier accepted it, 0 if not notified
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ApprovalRow(
    @JsonProperty("sessionId") String sessionId,
    @JsonProperty("approvalId") String approvalId,
    @JsonProperty("run") int run,
    @JsonProperty("step") int step,
    @JsonProperty("toolCallId") String toolCallId,
    @JsonProperty("toolName") String toolName,
    @JsonProperty("input") JsonNode input,
    @JsonProperty("status") ApprovalStatus status,
    @JsonProperty("requestedAt") long requestedAt,
    @JsonProperty("expiresAt") long expiresAt,
    @JsonProperty("decidedAt") long decidedAt,
    @JsonProperty("decidedBy") String decidedBy,
    @JsonProperty("note") String note,
    @JsonProperty("notifiedAt") long notifiedAt) {

  /** Whether the approval still waits for its decision. */
  public boolean isPending() {
    return status == ApprovalStatus.PENDING;
  }
}
