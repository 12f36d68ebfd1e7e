package io.durableagents.session;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Where an approval stands. Each has a JSON value ({@link #value()}, also its {@link #toString()}),
 * used by the payloads and the projection's {@code agent_approvals.status}.
 */
public enum ApprovalStatus {
  /** Waiting for a decision. */
  PENDING("pending"),
  /** Approved: the call runs. */
  APPROVED("approved"),
  /** Rejected: the call is not made and the model gets the rejection. */
  REJECTED("rejected"),
  /** No decision came before the approval expired. */
  EXPIRED("expired"),
  /** The run was cancelled while the approval was pending. */
  CANCELLED("cancelled");

  private final String value;

  ApprovalStatus(String value) {
    this.value = value;
  }

  /** The JSON value, e.g. {@code pending}. */
  @JsonValue
  public String value() {
    return value;
  }

  /** The status whose JSON value is {@code value}; null for null. */
  @JsonCreator
  public static ApprovalStatus fromValue(String value) {
    if (value == null) {
      return null;
    }
    for (ApprovalStatus status : values()) {
      if (status.value.equals(value)) {
        return status;
      }
    }
    throw new IllegalArgumentException("Unknown approval status '" + value + "'.");
  }

  @Override
  public String toString() {
    return value;
  }
}
