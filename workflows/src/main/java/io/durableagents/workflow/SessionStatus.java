package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Usage;
import io.durableagents.session.Approval;
import io.durableagents.session.RunStatus;
import io.durableagents.session.SessionLifecycle;
import java.util.Objects;

/**
 * What the {@code status} query answers: where the session is, without the transcript. {@code
 * businessState} is the state the session's tools keep, or null when they keep none.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class SessionStatus {
  private final String sessionId;
  private final String agent;
  private final RunStatus status;
  private final int run;
  private final int checkpointStep;
  private final int messageCount;
  private final Usage usage;
  private final RunResult lastResult;
  private final Approval approval;
  private final JsonNode businessState;
  private final Integer maxSteps;
  private final SessionLifecycle lifecycle;
  private final Integer resetTo;
  private final String concurrencyKey;
  private final Integer queuePlace;

  @JsonCreator
  private SessionStatus(
      @JsonProperty("sessionId") String sessionId,
      @JsonProperty("agent") String agent,
      @JsonProperty("status") RunStatus status,
      @JsonProperty("run") int run,
      @JsonProperty("checkpointStep") int checkpointStep,
      @JsonProperty("messageCount") int messageCount,
      @JsonProperty("usage") Usage usage,
      @JsonProperty("lastResult") RunResult lastResult,
      @JsonProperty("approval") Approval approval,
      @JsonProperty("businessState") JsonNode businessState,
      @JsonProperty("maxSteps") Integer maxSteps,
      @JsonProperty("lifecycle") SessionLifecycle lifecycle,
      @JsonProperty("resetTo") Integer resetTo,
      @JsonProperty("concurrencyKey") String concurrencyKey,
      @JsonProperty("queuePlace") Integer queuePlace) {
    this.sessionId = sessionId;
    this.agent = agent;
    this.status = status;
    this.run = run;
    this.checkpointStep = checkpointStep;
    this.messageCount = messageCount;
    this.usage = usage;
    this.lastResult = lastResult;
    this.approval = approval;
    this.businessState = businessState;
    this.maxSteps = maxSteps;
    this.lifecycle = lifecycle == null ? SessionLifecycle.OPEN : lifecycle;
    this.resetTo = resetTo;
    this.concurrencyKey = concurrencyKey;
    this.queuePlace = queuePlace;
  }

  /** A builder of a new {@code SessionStatus}. */
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

  /** The current run number (from 1). */
  @JsonProperty("run")
  public int run() {
    return run;
  }

  /** The step of the newest checkpoint. */
  @JsonProperty("checkpointStep")
  public int checkpointStep() {
    return checkpointStep;
  }

  /** The number of transcript messages. */
  @JsonProperty("messageCount")
  public int messageCount() {
    return messageCount;
  }

  /** Tokens the session used in all. */
  @JsonProperty("usage")
  public Usage usage() {
    return usage;
  }

  /**
   * The result of the last run (without messages): that of the run waiting for a decision, paused
   * (awaiting approval) as its send was answered; else that of the newest settled run; null before
   * the first.
   */
  @JsonProperty("lastResult")
  public RunResult lastResult() {
    return lastResult;
  }

  /** The approval the session waits for, or null. */
  @JsonProperty("approval")
  public Approval approval() {
    return approval;
  }

  /** The state the session's tools keep, or null when they keep none. */
  @JsonProperty("businessState")
  public JsonNode businessState() {
    return businessState;
  }

  /**
   * Whether the session's workflow is open, closing (a close was accepted, the run in progress
   * finishes first) or closed (a send starts it again from its last entry).
   */
  @JsonProperty("lifecycle")
  public SessionLifecycle lifecycle() {
    return lifecycle;
  }

  /**
   * The history entry (its step) the session was last reset to, or null when it never was: its
   * entries after that one are kept, marked superseded by the reset.
   */
  @JsonProperty("resetTo")
  public Integer resetTo() {
    return resetTo;
  }

  /**
   * The model-turn budget the session's start set for every run (a send's {@code maxSteps}), or
   * null when its runs take the agent's. A sub-agent session shows the budget its runs take: the
   * smaller of what its parent's run had left and its agent's own (once its run knows the agent).
   */
  @JsonProperty("maxSteps")
  public Integer maxSteps() {
    return maxSteps;
  }

  /** The concurrency key of the run in progress (or of the last run), or null when it has none. */
  @JsonProperty("concurrencyKey")
  public String concurrencyKey() {
    return concurrencyKey;
  }

  /**
   * While the run is {@link RunStatus#QUEUED queued}: its place in the queue of its concurrency key
   * (1: next to run); null otherwise.
   */
  @JsonProperty("queuePlace")
  public Integer queuePlace() {
    return queuePlace;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof SessionStatus that)) {
      return false;
    }
    return Objects.equals(sessionId, that.sessionId)
        && Objects.equals(agent, that.agent)
        && Objects.equals(status, that.status)
        && run == that.run
        && checkpointStep == that.checkpointStep
        && messageCount == that.messageCount
        && Objects.equals(usage, that.usage)
        && Objects.equals(lastResult, that.lastResult)
        && Objects.equals(approval, that.approval)
        && Objects.equals(businessState, that.businessState)
        && Objects.equals(maxSteps, that.maxSteps)
        && lifecycle == that.lifecycle
        && Objects.equals(resetTo, that.resetTo)
        && Objects.equals(concurrencyKey, that.concurrencyKey)
        && Objects.equals(queuePlace, that.queuePlace);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        sessionId,
        agent,
        status,
        run,
        checkpointStep,
        messageCount,
        usage,
        lastResult,
        approval,
        businessState,
        maxSteps,
        lifecycle,
        resetTo,
        concurrencyKey,
        queuePlace);
  }

  @Override
  public String toString() {
    return "SessionStatus[sessionId="
        + sessionId
        + ", agent="
        + agent
        + ", status="
        + status
        + ", run="
        + run
        + ", checkpointStep="
        + checkpointStep
        + ", messageCount="
        + messageCount
        + ", usage="
        + usage
        + ", lastResult="
        + lastResult
        + ", approval="
        + approval
        + ", businessState="
        + businessState
        + ", maxSteps="
        + maxSteps
        + ", lifecycle="
        + lifecycle
        + ", resetTo="
        + resetTo
        + ", concurrencyKey="
        + concurrencyKey
        + ", queuePlace="
        + queuePlace
        + "]";
  }

  /** Builds a {@link SessionStatus}; unset values are null, zero or false. */
  public static final class Builder {
    private String sessionId;
    private String agent;
    private RunStatus status;
    private int run;
    private int checkpointStep;
    private int messageCount;
    private Usage usage;
    private RunResult lastResult;
    private Approval approval;
    private JsonNode businessState;
    private Integer maxSteps;
    private SessionLifecycle lifecycle;
    private Integer resetTo;
    private String concurrencyKey;
    private Integer queuePlace;

    private Builder() {}

    private Builder(SessionStatus value) {
      this.sessionId = value.sessionId;
      this.agent = value.agent;
      this.status = value.status;
      this.run = value.run;
      this.checkpointStep = value.checkpointStep;
      this.messageCount = value.messageCount;
      this.usage = value.usage;
      this.lastResult = value.lastResult;
      this.approval = value.approval;
      this.businessState = value.businessState;
      this.maxSteps = value.maxSteps;
      this.lifecycle = value.lifecycle;
      this.resetTo = value.resetTo;
      this.concurrencyKey = value.concurrencyKey;
      this.queuePlace = value.queuePlace;
    }

    /** Sets {@link SessionStatus#sessionId()}. */
    public Builder setSessionId(String sessionId) {
      this.sessionId = sessionId;
      return this;
    }

    /** Sets {@link SessionStatus#agent()}. */
    public Builder setAgent(String agent) {
      this.agent = agent;
      return this;
    }

    /** Sets {@link SessionStatus#status()}. */
    public Builder setStatus(RunStatus status) {
      this.status = status;
      return this;
    }

    /** Sets {@link SessionStatus#run()}. */
    public Builder setRun(int run) {
      this.run = run;
      return this;
    }

    /** Sets {@link SessionStatus#checkpointStep()}. */
    public Builder setCheckpointStep(int checkpointStep) {
      this.checkpointStep = checkpointStep;
      return this;
    }

    /** Sets {@link SessionStatus#messageCount()}. */
    public Builder setMessageCount(int messageCount) {
      this.messageCount = messageCount;
      return this;
    }

    /** Sets {@link SessionStatus#usage()}. */
    public Builder setUsage(Usage usage) {
      this.usage = usage;
      return this;
    }

    /** Sets {@link SessionStatus#lastResult()}. */
    public Builder setLastResult(RunResult lastResult) {
      this.lastResult = lastResult;
      return this;
    }

    /** Sets {@link SessionStatus#approval()}. */
    public Builder setApproval(Approval approval) {
      this.approval = approval;
      return this;
    }

    /** Sets {@link SessionStatus#businessState()}. */
    public Builder setBusinessState(JsonNode businessState) {
      this.businessState = businessState;
      return this;
    }

    /** Sets {@link SessionStatus#lifecycle()} (null: open). */
    public Builder setLifecycle(SessionLifecycle lifecycle) {
      this.lifecycle = lifecycle;
      return this;
    }

    /** Sets {@link SessionStatus#resetTo()} (null: never reset). */
    public Builder setResetTo(Integer resetTo) {
      this.resetTo = resetTo;
      return this;
    }

    /** Sets {@link SessionStatus#maxSteps()}. */
    public Builder setMaxSteps(Integer maxSteps) {
      this.maxSteps = maxSteps;
      return this;
    }

    /** Sets {@link SessionStatus#concurrencyKey()}. */
    public Builder setConcurrencyKey(String concurrencyKey) {
      this.concurrencyKey = concurrencyKey;
      return this;
    }

    /** Sets {@link SessionStatus#queuePlace()}. */
    public Builder setQueuePlace(Integer queuePlace) {
      this.queuePlace = queuePlace;
      return this;
    }

    /** The value. */
    public SessionStatus build() {
      return new SessionStatus(
          sessionId,
          agent,
          status,
          run,
          checkpointStep,
          messageCount,
          usage,
          lastResult,
          approval,
          businessState,
          maxSteps,
          lifecycle,
          resetTo,
          concurrencyKey,
          queuePlace);
    }
  }
}
