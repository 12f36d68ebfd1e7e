package io.durableagents.workflow.internal.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.durableagents.session.Approval;
import io.durableagents.session.ApprovalStatus;

/**
 * Signal {@code subAgentApproval}, from a sub-agent session to its parent (and relayed up to the
 * root): {@code approval} of sub-agent session {@code approval.sessionId()} is now {@code status}
 * ({@code pending} when it opens; decided, expired or cancelled when it closes).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SubAgentApproval(
    @JsonProperty("approval") Approval approval, @JsonProperty("status") ApprovalStatus status) {

  /** Whether the approval waits for a decision. */
  public boolean open() {
    return status == ApprovalStatus.PENDING;
  }
}
