package io.durableagents.tools;

import io.durableagents.workflow.TriggerEnvelope;
import io.durableagents.workflow.internal.activity.IdempotencyKeys;
import java.util.Objects;

/**
 * What a tool knows about the call it serves. Tools are at-least-once: a call in flight when a
 * worker dies runs again, so give side effects {@link #idempotencyKey()}, never {@link
 * #toolCallId()}: the model's call ids repeat across sessions and forks.
 */
public final class ToolContext {
  private final String toolCallId;
  private final String sessionId;
  private final String agent;
  private final int run;
  private final int attempt;
  private final TriggerEnvelope trigger;
  private final BusinessState businessState;
  private final String idempotencyKey;
  private final ToolCancellation cancellation;

  private ToolContext(
      String toolCallId,
      String sessionId,
      String agent,
      int run,
      int attempt,
      TriggerEnvelope trigger,
      BusinessState businessState,
      String idempotencyKey,
      ToolCancellation cancellation) {
    businessState = businessState == null ? BusinessState.empty() : businessState;
    if (idempotencyKey == null || idempotencyKey.isBlank()) {
      idempotencyKey = IdempotencyKeys.forCall(sessionId, null, run, -1, toolCallId);
    }
    this.toolCallId = toolCallId;
    this.sessionId = sessionId;
    this.agent = agent;
    this.run = run;
    this.attempt = attempt;
    this.trigger = trigger;
    this.businessState = businessState;
    this.idempotencyKey = idempotencyKey;
    this.cancellation = cancellation == null ? new ToolCancellation() : cancellation;
  }

  /** A builder of a new {@code ToolContext}. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** A builder that starts from this value. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * The model's id of this call: unique within the session's conversation only (it pairs the call
   * with its result), the same on every attempt
   */
  public String toolCallId() {
    return toolCallId;
  }

  /** The session the call belongs to */
  public String sessionId() {
    return sessionId;
  }

  /** The agent's name */
  public String agent() {
    return agent;
  }

  /** The run number within the session */
  public int run() {
    return run;
  }

  /** The activity attempt, starting at 1 */
  public int attempt() {
    return attempt;
  }

  /** The envelope that started the run (id, keys, thread, payload...), or null */
  public TriggerEnvelope trigger() {
    return trigger;
  }

  /** The session's business state: read it, and update it with merge patches */
  public BusinessState businessState() {
    return businessState;
  }

  /**
   * The key for this call's side effects: a UUID unique across sessions and forks, the same on
   * every attempt, after a worker restart and across continue-as-new. A fork that runs a call again
   * (one its source had not answered) gets a new key: the fork is a new session, and its effects
   * are new effects. Derived from the session, run and call id when a context is built without one
   * (in a tool's own tests).
   */
  public String idempotencyKey() {
    return idempotencyKey;
  }

  /**
   * The call's cancellation: fires when the run is cancelled or times out, when the call's timeout
   * passes and when the worker shuts down (see {@link ToolCancellation}). A context built without
   * one is never cancelled.
   */
  public ToolCancellation cancellation() {
    return cancellation;
  }

  /** Whether the call was cancelled: its result is no longer wanted. */
  public boolean isCancelled() {
    return cancellation.isCancelled();
  }

  /**
   * Runs {@code callback} when the call is cancelled (at once if it already was); close the
   * registration once the work it would abort is done.
   */
  public ToolCancellation.Registration onCancel(Runnable callback) {
    return cancellation.onCancel(callback);
  }

  /** Equal when the call's values are; the cancellation is not compared. */
  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ToolContext that)) {
      return false;
    }
    return Objects.equals(toolCallId, that.toolCallId)
        && Objects.equals(sessionId, that.sessionId)
        && Objects.equals(agent, that.agent)
        && run == that.run
        && attempt == that.attempt
        && Objects.equals(trigger, that.trigger)
        && Objects.equals(businessState, that.businessState)
        && Objects.equals(idempotencyKey, that.idempotencyKey);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        toolCallId, sessionId, agent, run, attempt, trigger, businessState, idempotencyKey);
  }

  @Override
  public String toString() {
    return "ToolContext[toolCallId="
        + toolCallId
        + ", sessionId="
        + sessionId
        + ", agent="
        + agent
        + ", run="
        + run
        + ", attempt="
        + attempt
        + ", trigger="
        + trigger
        + ", idempotencyKey="
        + idempotencyKey
        + "]";
  }

  /** Builds a {@link ToolContext}; unset values are null, zero or false. */
  public static final class Builder {
    private String toolCallId;
    private String sessionId;
    private String agent;
    private int run;
    private int attempt;
    private TriggerEnvelope trigger;
    private BusinessState businessState;
    private String idempotencyKey;
    private ToolCancellation cancellation;

    private Builder() {}

    private Builder(ToolContext value) {
      this.toolCallId = value.toolCallId;
      this.sessionId = value.sessionId;
      this.agent = value.agent;
      this.run = value.run;
      this.attempt = value.attempt;
      this.trigger = value.trigger;
      this.businessState = value.businessState;
      this.idempotencyKey = value.idempotencyKey;
      this.cancellation = value.cancellation;
    }

    /** Sets {@link ToolContext#toolCallId()}. */
    public Builder setToolCallId(String toolCallId) {
      this.toolCallId = toolCallId;
      return this;
    }

    /** Sets {@link ToolContext#sessionId()}. */
    public Builder setSessionId(String sessionId) {
      this.sessionId = sessionId;
      return this;
    }

    /** Sets {@link ToolContext#agent()}. */
    public Builder setAgent(String agent) {
      this.agent = agent;
      return this;
    }

    /** Sets {@link ToolContext#run()}. */
    public Builder setRun(int run) {
      this.run = run;
      return this;
    }

    /** Sets {@link ToolContext#attempt()}. */
    public Builder setAttempt(int attempt) {
      this.attempt = attempt;
      return this;
    }

    /** Sets {@link ToolContext#trigger()}. */
    public Builder setTrigger(TriggerEnvelope trigger) {
      this.trigger = trigger;
      return this;
    }

    /** Sets {@link ToolContext#businessState()}. */
    public Builder setBusinessState(BusinessState businessState) {
      this.businessState = businessState;
      return this;
    }

    /** Sets {@link ToolContext#idempotencyKey()}. */
    public Builder setIdempotencyKey(String idempotencyKey) {
      this.idempotencyKey = idempotencyKey;
      return this;
    }

    /** Sets {@link ToolContext#cancellation()}; a new, never-cancelled one when unset. */
    public Builder setCancellation(ToolCancellation cancellation) {
      this.cancellation = cancellation;
      return this;
    }

    /** The value. */
    public ToolContext build() {
      return new ToolContext(
          toolCallId,
          sessionId,
          agent,
          run,
          attempt,
          trigger,
          businessState,
          idempotencyKey,
          cancellation);
    }
  }
}
