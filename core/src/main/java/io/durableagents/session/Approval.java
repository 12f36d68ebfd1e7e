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
 * <p>A sub-agent's approval shows on the sessions above it as well (their status, their waiting
 * senders' result); there {@code sessionId} names the sub-agent session that asks, and a decision
 * sent to any of those sessions reaches it. Null for a session's own approval.
 *
 * @param requestedAt epoch milliseconds
 * @param expiresAt epoch milliseconds; past it the call gets {@code {"error": "approval_expired"}}
 * @param sessionId the sub-agent session that asks; null when it is the session's own
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Approval(
    @JsonProperty("approvalId") String approvalId,
    @JsonProperty("toolCallId") String toolCallId,
    @JsonProperty("toolName") String toolName,
    @JsonProperty("input") JsonNode input,
    @JsonProperty("requestedAt") long requestedAt,
    @JsonProperty("expiresAt") long expiresAt,
    @JsonProperty("sessionId") String sessionId) {

  /** A session's own approval. */
  public Approval(
      String approvalId,
      String toolCallId,
      String toolName,
      JsonNode input,
      long requestedAt,
      long expiresAt) {
    this(approvalId, toolCallId, toolName, input, requestedAt, expiresAt, null);
  }

  /** This approval, as shown on the sessions above sub-agent session {@code asking}. */
  public Approval askedBy(String asking) {
    return new Approval(approvalId, toolCallId, toolName, input, requestedAt, expiresAt, asking);
  }
}
