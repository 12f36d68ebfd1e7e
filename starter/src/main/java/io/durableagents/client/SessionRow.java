package io.durableagents.client;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.durableagents.session.RunStatus;
import io.durableagents.session.SessionLifecycle;
import java.util.Objects;

/** A session as the projection last saw it: the newest checkpoint the worker stored. */
public final class SessionRow {
  private final String sessionId;
  private final String agent;
  private final RunStatus status;
  private final int currentRun;
  private final int lastStep;
  private final int messageCount;
  private final long inputTokens;
  private final long outputTokens;
  private final long updatedAt;
  private final String parentSessionId;
  private final Integer parentStep;
  private final String forkPatch;
  private final SessionLifecycle lifecycle;
  private final Integer resetTo;
  private final String parentCallId;

  @JsonCreator
  private SessionRow(
      @JsonProperty("sessionId") String sessionId,
      @JsonProperty("agent") String agent,
      @JsonProperty("status") RunStatus status,
      @JsonProperty("currentRun") int currentRun,
      @JsonProperty("lastStep") int lastStep,
      @JsonProperty("messageCount") int messageCount,
      @JsonProperty("inputTokens") long inputTokens,
      @JsonProperty("outputTokens") long outputTokens,
      @JsonProperty("updatedAt") long updatedAt,
      @JsonProperty("parentSessionId") String parentSessionId,
      @JsonProperty("parentStep") Integer parentStep,
      @JsonProperty("forkPatch") String forkPatch,
      @JsonProperty("lifecycle") SessionLifecycle lifecycle,
      @JsonProperty("resetTo") Integer resetTo,
      @JsonProperty("parentCallId") String parentCallId) {
    this.sessionId = sessionId;
    this.agent = agent;
    this.status = status;
    this.currentRun = currentRun;
    this.lastStep = lastStep;
    this.messageCount = messageCount;
    this.inputTokens = inputTokens;
    this.outputTokens = outputTokens;
    this.updatedAt = updatedAt;
    this.parentSessionId = parentSessionId;
    this.parentStep = parentStep;
    this.forkPatch = forkPatch;
    this.lifecycle = lifecycle == null ? SessionLifecycle.OPEN : lifecycle;
    this.resetTo = resetTo;
    this.parentCallId = parentCallId;
  }

  /** A builder of a new {@code SessionRow}. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** A builder that starts from this value. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The session id. */
  @JsonProperty("sessionId")
  public String sessionId() {
    return sessionId;
  }

  /** The session's agent. */
  @JsonProperty("agent")
  public String agent() {
    return agent;
  }

  /** Where the session's current run stands. */
  @JsonProperty("status")
  public RunStatus status() {
    return status;
  }

  /** The run the session is in (runs count the messages sent to it, from 1) */
  @JsonProperty("currentRun")
  public int currentRun() {
    return currentRun;
  }

  /** The step of the newest checkpoint */
  @JsonProperty("lastStep")
  public int lastStep() {
    return lastStep;
  }

  /** The number of transcript messages at that checkpoint */
  @JsonProperty("messageCount")
  public int messageCount() {
    return messageCount;
  }

  /** Input tokens the session used in all. */
  @JsonProperty("inputTokens")
  public long inputTokens() {
    return inputTokens;
  }

  /** Output tokens the session used in all. */
  @JsonProperty("outputTokens")
  public long outputTokens() {
    return outputTokens;
  }

  /** Epoch milliseconds (UTC) of that checkpoint */
  @JsonProperty("updatedAt")
  public long updatedAt() {
    return updatedAt;
  }

  /**
   * For a fork, the session it was taken from; for a sub-agent session, the session whose call it
   * answers ({@link #parentCallId()}); otherwise null
   */
  @JsonProperty("parentSessionId")
  public String parentSessionId() {
    return parentSessionId;
  }

  /** For a fork, the parent's history step it starts from; otherwise null */
  @JsonProperty("parentStep")
  public Integer parentStep() {
    return parentStep;
  }

  /**
   * For a fork, a one-line summary of its patch ({@code "none"} if unpatched, e.g. {@code
   * "businessState toolResult(call_0_0) appendInput"}); otherwise null
   */
  @JsonProperty("forkPatch")
  public String forkPatch() {
    return forkPatch;
  }

  /**
   * {@code closed} once the session's workflow completed (closed by a client or by its idle
   * timeout; a send starts it again), else {@code open}.
   */
  @JsonProperty("lifecycle")
  public SessionLifecycle lifecycle() {
    return lifecycle;
  }

  /**
   * The history step the session was last reset to, or null when it never was: its entries after
   * that one are kept, marked superseded.
   */
  @JsonProperty("resetTo")
  public Integer resetTo() {
    return resetTo;
  }

  /** For a sub-agent session, the tool call of its parent that it answers; otherwise null */
  @JsonProperty("parentCallId")
  public String parentCallId() {
    return parentCallId;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof SessionRow that)) {
      return false;
    }
    return Objects.equals(sessionId, that.sessionId)
        && Objects.equals(agent, that.agent)
        && Objects.equals(status, that.status)
        && currentRun == that.currentRun
        && lastStep == that.lastStep
        && messageCount == that.messageCount
        && inputTokens == that.inputTokens
        && outputTokens == that.outputTokens
        && updatedAt == that.updatedAt
        && Objects.equals(parentSessionId, that.parentSessionId)
        && Objects.equals(parentStep, that.parentStep)
        && Objects.equals(forkPatch, that.forkPatch)
        && lifecycle == that.lifecycle
        && Objects.equals(resetTo, that.resetTo)
        && Objects.equals(parentCallId, that.parentCallId);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        sessionId,
        agent,
        status,
        currentRun,
        lastStep,
        messageCount,
        inputTokens,
        outputTokens,
        updatedAt,
        parentSessionId,
        parentStep,
        forkPatch,
        lifecycle,
        resetTo,
        parentCallId);
  }

  @Override
  public String toString() {
    return "SessionRow[sessionId="
        + sessionId
        + ", agent="
        + agent
        + ", status="
        + status
        + ", currentRun="
        + currentRun
        + ", lastStep="
        + lastStep
        + ", messageCount="
        + messageCount
        + ", inputTokens="
        + inputTokens
        + ", outputTokens="
        + outputTokens
        + ", updatedAt="
        + updatedAt
        + ", parentSessionId="
        + parentSessionId
        + ", parentStep="
        + parentStep
        + ", forkPatch="
        + forkPatch
        + ", lifecycle="
        + lifecycle
        + ", resetTo="
        + resetTo
        + ", parentCallId="
        + parentCallId
        + "]";
  }

  /** Builds a {@link SessionRow}; unset values are null, zero or false. */
  public static final class Builder {
    private String sessionId;
    private String agent;
    private RunStatus status;
    private int currentRun;
    private int lastStep;
    private int messageCount;
    private long inputTokens;
    private long outputTokens;
    private long updatedAt;
    private String parentSessionId;
    private Integer parentStep;
    private String forkPatch;
    private SessionLifecycle lifecycle;
    private Integer resetTo;
    private String parentCallId;

    private Builder() {}

    private Builder(SessionRow value) {
      this.sessionId = value.sessionId;
      this.agent = value.agent;
      this.status = value.status;
      this.currentRun = value.currentRun;
      this.lastStep = value.lastStep;
      this.messageCount = value.messageCount;
      this.inputTokens = value.inputTokens;
      this.outputTokens = value.outputTokens;
      this.updatedAt = value.updatedAt;
      this.parentSessionId = value.parentSessionId;
      this.parentStep = value.parentStep;
      this.forkPatch = value.forkPatch;
      this.lifecycle = value.lifecycle;
      this.resetTo = value.resetTo;
      this.parentCallId = value.parentCallId;
    }

    /** Sets {@link SessionRow#sessionId()}. */
    public Builder setSessionId(String sessionId) {
      this.sessionId = sessionId;
      return this;
    }

    /** Sets {@link SessionRow#agent()}. */
    public Builder setAgent(String agent) {
      this.agent = agent;
      return this;
    }

    /** Sets {@link SessionRow#status()}. */
    public Builder setStatus(RunStatus status) {
      this.status = status;
      return this;
    }

    /** Sets {@link SessionRow#currentRun()}. */
    public Builder setCurrentRun(int currentRun) {
      this.currentRun = currentRun;
      return this;
    }

    /** Sets {@link SessionRow#lastStep()}. */
    public Builder setLastStep(int lastStep) {
      this.lastStep = lastStep;
      return this;
    }

    /** Sets {@link SessionRow#messageCount()}. */
    public Builder setMessageCount(int messageCount) {
      this.messageCount = messageCount;
      return this;
    }

    /** Sets {@link SessionRow#inputTokens()}. */
    public Builder setInputTokens(long inputTokens) {
      this.inputTokens = inputTokens;
      return this;
    }

    /** Sets {@link SessionRow#outputTokens()}. */
    public Builder setOutputTokens(long outputTokens) {
      this.outputTokens = outputTokens;
      return this;
    }

    /** Sets {@link SessionRow#updatedAt()}. */
    public Builder setUpdatedAt(long updatedAt) {
      this.updatedAt = updatedAt;
      return this;
    }

    /** Sets {@link SessionRow#parentSessionId()}. */
    public Builder setParentSessionId(String parentSessionId) {
      this.parentSessionId = parentSessionId;
      return this;
    }

    /** Sets {@link SessionRow#parentStep()}. */
    public Builder setParentStep(Integer parentStep) {
      this.parentStep = parentStep;
      return this;
    }

    /** Sets {@link SessionRow#parentCallId()}. */
    public Builder setParentCallId(String parentCallId) {
      this.parentCallId = parentCallId;
      return this;
    }

    /** Sets {@link SessionRow#resetTo()} (null: never reset). */
    public Builder setResetTo(Integer resetTo) {
      this.resetTo = resetTo;
      return this;
    }

    /** Sets {@link SessionRow#lifecycle()} (null: open). */
    public Builder setLifecycle(SessionLifecycle lifecycle) {
      this.lifecycle = lifecycle;
      return this;
    }

    /** Sets {@link SessionRow#forkPatch()}. */
    public Builder setForkPatch(String forkPatch) {
      this.forkPatch = forkPatch;
      return this;
    }

    /** The value. */
    public SessionRow build() {
      return new SessionRow(
          sessionId,
          agent,
          status,
          currentRun,
          lastStep,
          messageCount,
          inputTokens,
          outputTokens,
          updatedAt,
          parentSessionId,
          parentStep,
          forkPatch,
          lifecycle,
          resetTo,
          parentCallId);
    }
  }
}
