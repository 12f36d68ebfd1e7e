package io.durableagents.client;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.session.ApprovalStatus;
import java.util.Objects;

/**
 * An approval as the projection keeps it, for back-office inboxes: a gated tool call that waits (or
 * waited) for a human decision.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class ApprovalRow {
  private final String sessionId;
  private final String approvalId;
  private final int run;
  private final int step;
  private final String toolCallId;
  private final String toolName;
  private final JsonNode input;
  private final ApprovalStatus status;
  private final long requestedAt;
  private final long expiresAt;
  private final long decidedAt;
  private final String decidedBy;
  private final String note;
  private final long notifiedAt;
  private final String parentSessionId;

  @JsonCreator
  private ApprovalRow(
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
      @JsonProperty("notifiedAt") long notifiedAt,
      @JsonProperty("parentSessionId") String parentSessionId) {
    this.sessionId = sessionId;
    this.approvalId = approvalId;
    this.run = run;
    this.step = step;
    this.toolCallId = toolCallId;
    this.toolName = toolName;
    this.input = input;
    this.status = status;
    this.requestedAt = requestedAt;
    this.expiresAt = expiresAt;
    this.decidedAt = decidedAt;
    this.decidedBy = decidedBy;
    this.note = note;
    this.notifiedAt = notifiedAt;
    this.parentSessionId = parentSessionId;
  }

  /** A builder of a new {@code ApprovalRow}. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** A builder that starts from this value. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The session that waits. */
  @JsonProperty("sessionId")
  public String sessionId() {
    return sessionId;
  }

  /** The approval's id. */
  @JsonProperty("approvalId")
  public String approvalId() {
    return approvalId;
  }

  /** The run of the gated call. */
  @JsonProperty("run")
  public int run() {
    return run;
  }

  /** The checkpoint step of the pause. */
  @JsonProperty("step")
  public int step() {
    return step;
  }

  /** The gated call's id. */
  @JsonProperty("toolCallId")
  public String toolCallId() {
    return toolCallId;
  }

  /** The gated tool's name. */
  @JsonProperty("toolName")
  public String toolName() {
    return toolName;
  }

  /** The tool call's arguments */
  @JsonProperty("input")
  public JsonNode input() {
    return input;
  }

  /** {@code pending}, {@code approved}, {@code rejected}, {@code expired} or {@code cancelled} */
  @JsonProperty("status")
  public ApprovalStatus status() {
    return status;
  }

  /** Epoch milliseconds (UTC) */
  @JsonProperty("requestedAt")
  public long requestedAt() {
    return requestedAt;
  }

  /** Epoch milliseconds (UTC); past it the call gets {@code {"error": "approval_expired"}} */
  @JsonProperty("expiresAt")
  public long expiresAt() {
    return expiresAt;
  }

  /** Epoch milliseconds (UTC), 0 while pending */
  @JsonProperty("decidedAt")
  public long decidedAt() {
    return decidedAt;
  }

  /** Who decided, or null */
  @JsonProperty("decidedBy")
  public String decidedBy() {
    return decidedBy;
  }

  /** The decision's note, or null */
  @JsonProperty("note")
  public String note() {
    return note;
  }

  /** Epoch milliseconds (UTC) the agent's notifier accepted it, 0 if not notified */
  @JsonProperty("notifiedAt")
  public long notifiedAt() {
    return notifiedAt;
  }

  /** Whether the approval still waits for its decision. */
  public boolean isPending() {
    return status == ApprovalStatus.PENDING;
  }

  /**
   * When the approval is a sub-agent session's, the session that handed it the task (the approval
   * can be decided there too); otherwise null.
   */
  @JsonProperty("parentSessionId")
  public String parentSessionId() {
    return parentSessionId;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ApprovalRow that)) {
      return false;
    }
    return Objects.equals(sessionId, that.sessionId)
        && Objects.equals(approvalId, that.approvalId)
        && run == that.run
        && step == that.step
        && Objects.equals(toolCallId, that.toolCallId)
        && Objects.equals(toolName, that.toolName)
        && Objects.equals(input, that.input)
        && Objects.equals(status, that.status)
        && requestedAt == that.requestedAt
        && expiresAt == that.expiresAt
        && decidedAt == that.decidedAt
        && Objects.equals(decidedBy, that.decidedBy)
        && Objects.equals(note, that.note)
        && notifiedAt == that.notifiedAt
        && Objects.equals(parentSessionId, that.parentSessionId);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        sessionId,
        approvalId,
        run,
        step,
        toolCallId,
        toolName,
        input,
        status,
        requestedAt,
        expiresAt,
        decidedAt,
        decidedBy,
        note,
        notifiedAt,
        parentSessionId);
  }

  @Override
  public String toString() {
    return "ApprovalRow[sessionId="
        + sessionId
        + ", approvalId="
        + approvalId
        + ", run="
        + run
        + ", step="
        + step
        + ", toolCallId="
        + toolCallId
        + ", toolName="
        + toolName
        + ", input="
        + input
        + ", status="
        + status
        + ", requestedAt="
        + requestedAt
        + ", expiresAt="
        + expiresAt
        + ", decidedAt="
        + decidedAt
        + ", decidedBy="
        + decidedBy
        + ", note="
        + note
        + ", notifiedAt="
        + notifiedAt
        + ", parentSessionId="
        + parentSessionId
        + "]";
  }

  /** Builds a {@link ApprovalRow}; unset values are null, zero or false. */
  public static final class Builder {
    private String sessionId;
    private String approvalId;
    private int run;
    private int step;
    private String toolCallId;
    private String toolName;
    private JsonNode input;
    private ApprovalStatus status;
    private long requestedAt;
    private long expiresAt;
    private long decidedAt;
    private String decidedBy;
    private String note;
    private long notifiedAt;
    private String parentSessionId;

    private Builder() {}

    private Builder(ApprovalRow value) {
      this.sessionId = value.sessionId;
      this.approvalId = value.approvalId;
      this.run = value.run;
      this.step = value.step;
      this.toolCallId = value.toolCallId;
      this.toolName = value.toolName;
      this.input = value.input;
      this.status = value.status;
      this.requestedAt = value.requestedAt;
      this.expiresAt = value.expiresAt;
      this.decidedAt = value.decidedAt;
      this.decidedBy = value.decidedBy;
      this.note = value.note;
      this.notifiedAt = value.notifiedAt;
      this.parentSessionId = value.parentSessionId;
    }

    /** Sets {@link ApprovalRow#sessionId()}. */
    public Builder setSessionId(String sessionId) {
      this.sessionId = sessionId;
      return this;
    }

    /** Sets {@link ApprovalRow#approvalId()}. */
    public Builder setApprovalId(String approvalId) {
      this.approvalId = approvalId;
      return this;
    }

    /** Sets {@link ApprovalRow#run()}. */
    public Builder setRun(int run) {
      this.run = run;
      return this;
    }

    /** Sets {@link ApprovalRow#step()}. */
    public Builder setStep(int step) {
      this.step = step;
      return this;
    }

    /** Sets {@link ApprovalRow#toolCallId()}. */
    public Builder setToolCallId(String toolCallId) {
      this.toolCallId = toolCallId;
      return this;
    }

    /** Sets {@link ApprovalRow#toolName()}. */
    public Builder setToolName(String toolName) {
      this.toolName = toolName;
      return this;
    }

    /** Sets {@link ApprovalRow#input()}. */
    public Builder setInput(JsonNode input) {
      this.input = input;
      return this;
    }

    /** Sets {@link ApprovalRow#status()}. */
    public Builder setStatus(ApprovalStatus status) {
      this.status = status;
      return this;
    }

    /** Sets {@link ApprovalRow#requestedAt()}. */
    public Builder setRequestedAt(long requestedAt) {
      this.requestedAt = requestedAt;
      return this;
    }

    /** Sets {@link ApprovalRow#expiresAt()}. */
    public Builder setExpiresAt(long expiresAt) {
      this.expiresAt = expiresAt;
      return this;
    }

    /** Sets {@link ApprovalRow#decidedAt()}. */
    public Builder setDecidedAt(long decidedAt) {
      this.decidedAt = decidedAt;
      return this;
    }

    /** Sets {@link ApprovalRow#decidedBy()}. */
    public Builder setDecidedBy(String decidedBy) {
      this.decidedBy = decidedBy;
      return this;
    }

    /** Sets {@link ApprovalRow#note()}. */
    public Builder setNote(String note) {
      this.note = note;
      return this;
    }

    /** Sets {@link ApprovalRow#parentSessionId()}. */
    public Builder setParentSessionId(String parentSessionId) {
      this.parentSessionId = parentSessionId;
      return this;
    }

    /** Sets {@link ApprovalRow#notifiedAt()}. */
    public Builder setNotifiedAt(long notifiedAt) {
      this.notifiedAt = notifiedAt;
      return this;
    }

    /** The value. */
    public ApprovalRow build() {
      return new ApprovalRow(
          sessionId,
          approvalId,
          run,
          step,
          toolCallId,
          toolName,
          input,
          status,
          requestedAt,
          expiresAt,
          decidedAt,
          decidedBy,
          note,
          notifiedAt,
          parentSessionId);
    }
  }
}
