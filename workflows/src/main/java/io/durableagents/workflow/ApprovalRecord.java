package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * An approval as the projection stores it: the wait point plus its state.
 *
 * @param status {@code "pending"}, {@code "approved"}, {@code "rejected"}, {@code "expired"} or
 *     {@code "cancelled"}
 * @param decidedAt epoch milliseconds, 0 while pending
 * @param notifiedAt epoch milliseconds the notifier accepted it, 0 if not (yet) notified
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ApprovalRecord(
    @JsonProperty("approval") Approval approval,
    @JsonProperty("run") int run,
    @JsonProperty("step") int step,
    @JsonProperty("status") String status,
    @JsonProperty("decidedAt") long decidedAt,
    @JsonProperty("decidedBy") String decidedBy,
    @JsonProperty("note") String note,
    @JsonProperty("notifiedAt") long notifiedAt) {

  public static final String PENDING = "pending";
  public static final String APPROVED = "approved";
  public static final String REJECTED = "rejected";
  public static final String EXPIRED = "expired";
  /** The run was cancelled while the approval was pending. */
  public static final String CANCELLED = "cancelled";
}
