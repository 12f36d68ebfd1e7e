package io.durableagents.client;

import java.util.Objects;

/**
 * Options of {@link AgentClient#approve} and {@link AgentClient#reject}: a note kept with the
 * decision and who decided, both stored with the approval (see {@code ApprovalRow}) and limited in
 * length ({@code io.durableagents.workflow.Limits}).
 *
 * <pre>{@code
 * agents.reject("chat-42", approvalId,
 *     DecisionOptions.newBuilder().setNote("over budget").setDecidedBy("alice").build());
 * }</pre>
 */
public final class DecisionOptions {
  private static final DecisionOptions DEFAULT_INSTANCE = newBuilder().build();

  private final String note;
  private final String decidedBy;

  private DecisionOptions(String note, String decidedBy) {
    this.note = note;
    this.decidedBy = decidedBy;
  }

  /** A builder with no note and no {@code decidedBy}. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** A builder that starts from {@code options}, to change some of them. */
  public static Builder newBuilder(DecisionOptions options) {
    return new Builder(options);
  }

  /** A decision without a note, by nobody named. */
  public static DecisionOptions getDefaultInstance() {
    return DEFAULT_INSTANCE;
  }

  /** {@link #newBuilder(DecisionOptions)} of these options. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The note kept with the decision, or null. */
  public String getNote() {
    return note;
  }

  /** Who decided, or null. */
  public String getDecidedBy() {
    return decidedBy;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof DecisionOptions that)) {
      return false;
    }
    return Objects.equals(note, that.note) && Objects.equals(decidedBy, that.decidedBy);
  }

  @Override
  public int hashCode() {
    return Objects.hash(note, decidedBy);
  }

  @Override
  public String toString() {
    return "DecisionOptions{note="
        + (note == null ? null : "'" + note + "'")
        + ", decidedBy="
        + (decidedBy == null ? null : "'" + decidedBy + "'")
        + "}";
  }

  /** Builds {@link DecisionOptions}. */
  public static final class Builder {
    private String note;
    private String decidedBy;

    private Builder() {}

    private Builder(DecisionOptions options) {
      Objects.requireNonNull(options, "options");
      note = options.note;
      decidedBy = options.decidedBy;
    }

    /**
     * A note kept with the decision; a rejected call's result carries it, so the model can tell
     * why. Default (null): none.
     */
    public Builder setNote(String note) {
      this.note = note;
      return this;
    }

    /** Who decides, kept with the approval for audits. Default (null): nobody named. */
    public Builder setDecidedBy(String decidedBy) {
      this.decidedBy = decidedBy;
      return this;
    }

    /** The options. */
    public DecisionOptions build() {
      return new DecisionOptions(note, decidedBy);
    }
  }
}
