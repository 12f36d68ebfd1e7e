package io.durableagents.client;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Usage;
import io.durableagents.session.RunStatus;
import io.durableagents.session.StepRecord;
import java.util.List;
import java.util.Objects;

/** A full checkpoint as the projection keeps it: where a session stood after one step. */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class Checkpoint {
  private final String sessionId;
  private final int stepIndex;
  private final int run;
  private final RunStatus status;
  private final String finishReason;
  private final List<Message> messages;
  private final JsonNode businessState;
  private final Usage usage;
  private final String fingerprint;
  private final long savedAt;
  private final JsonNode runConfig;
  private final String drift;
  private final List<StepRecord> steps;

  @JsonCreator
  private Checkpoint(
      @JsonProperty("sessionId") String sessionId,
      @JsonProperty("stepIndex") int stepIndex,
      @JsonProperty("run") int run,
      @JsonProperty("status") RunStatus status,
      @JsonProperty("finishReason") String finishReason,
      @JsonProperty("messages") List<Message> messages,
      @JsonProperty("businessState") JsonNode businessState,
      @JsonProperty("usage") Usage usage,
      @JsonProperty("fingerprint") String fingerprint,
      @JsonProperty("savedAt") long savedAt,
      @JsonProperty("runConfig") JsonNode runConfig,
      @JsonProperty("drift") String drift,
      @JsonProperty("steps") List<StepRecord> steps) {
    messages = messages == null ? List.of() : List.copyOf(messages);
    steps = steps == null ? List.of() : List.copyOf(steps);
    usage = usage == null ? Usage.ZERO : usage;
    this.sessionId = sessionId;
    this.stepIndex = stepIndex;
    this.run = run;
    this.status = status;
    this.finishReason = finishReason;
    this.messages = messages;
    this.businessState = businessState;
    this.usage = usage;
    this.fingerprint = fingerprint;
    this.savedAt = savedAt;
    this.runConfig = runConfig;
    this.drift = drift;
    this.steps = steps;
  }

  /** A builder of a new {@code Checkpoint}. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** A builder that starts from this value. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The session the checkpoint belongs to. */
  @JsonProperty("sessionId")
  public String sessionId() {
    return sessionId;
  }

  /** The step the checkpoint was saved after (a model turn or a tool batch) */
  @JsonProperty("stepIndex")
  public int stepIndex() {
    return stepIndex;
  }

  /** The run the step belongs to */
  @JsonProperty("run")
  public int run() {
    return run;
  }

  /**
   * The session's status at that step ({@code in-progress}, {@code awaiting-approval}, {@code
   * finished}, {@code failed}, {@code cancelled})
   */
  @JsonProperty("status")
  public RunStatus status() {
    return status;
  }

  /** Why the step ended, or null */
  @JsonProperty("finishReason")
  public String finishReason() {
    return finishReason;
  }

  /** The whole conversation at that step, in order */
  @JsonProperty("messages")
  public List<Message> messages() {
    return messages;
  }

  /** The JSON state the tools keep, or null */
  @JsonProperty("businessState")
  public JsonNode businessState() {
    return businessState;
  }

  /** Token totals of the session at that step */
  @JsonProperty("usage")
  public Usage usage() {
    return usage;
  }

  /** The agent definition's fingerprint, or null */
  @JsonProperty("fingerprint")
  public String fingerprint() {
    return fingerprint;
  }

  /** Epoch milliseconds (UTC) of the save */
  @JsonProperty("savedAt")
  public long savedAt() {
    return savedAt;
  }

  /** The run configuration of the step's run, or null when it had none */
  @JsonProperty("runConfig")
  public JsonNode runConfig() {
    return runConfig;
  }

  /**
   * What changed in the agent's definition since the run recorded it, when a worker under another
   * definition ran the run (its {@code onAgentDrift} policy {@code warn}); null when none was seen
   */
  @JsonProperty("drift")
  public String drift() {
    return drift;
  }

  /**
   * The model turns and tool calls this entry recorded, in order, with their times, errors and
   * usage (empty in entries written by versions before step records)
   */
  @JsonProperty("steps")
  public List<StepRecord> steps() {
    return steps;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof Checkpoint that)) {
      return false;
    }
    return Objects.equals(sessionId, that.sessionId)
        && stepIndex == that.stepIndex
        && run == that.run
        && Objects.equals(status, that.status)
        && Objects.equals(finishReason, that.finishReason)
        && Objects.equals(messages, that.messages)
        && Objects.equals(businessState, that.businessState)
        && Objects.equals(usage, that.usage)
        && Objects.equals(fingerprint, that.fingerprint)
        && savedAt == that.savedAt
        && Objects.equals(runConfig, that.runConfig)
        && Objects.equals(drift, that.drift)
        && Objects.equals(steps, that.steps);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        sessionId,
        stepIndex,
        run,
        status,
        finishReason,
        messages,
        businessState,
        usage,
        fingerprint,
        savedAt,
        runConfig,
        drift,
        steps);
  }

  @Override
  public String toString() {
    return "Checkpoint[sessionId="
        + sessionId
        + ", stepIndex="
        + stepIndex
        + ", run="
        + run
        + ", status="
        + status
        + ", finishReason="
        + finishReason
        + ", messages="
        + messages
        + ", businessState="
        + businessState
        + ", usage="
        + usage
        + ", fingerprint="
        + fingerprint
        + ", savedAt="
        + savedAt
        + ", runConfig="
        + runConfig
        + ", drift="
        + drift
        + ", steps="
        + steps
        + "]";
  }

  /** Builds a {@link Checkpoint}; unset values are null, zero or false. */
  public static final class Builder {
    private String sessionId;
    private int stepIndex;
    private int run;
    private RunStatus status;
    private String finishReason;
    private List<Message> messages;
    private JsonNode businessState;
    private Usage usage;
    private String fingerprint;
    private long savedAt;
    private JsonNode runConfig;
    private String drift;
    private List<StepRecord> steps;

    private Builder() {}

    private Builder(Checkpoint value) {
      this.sessionId = value.sessionId;
      this.stepIndex = value.stepIndex;
      this.run = value.run;
      this.status = value.status;
      this.finishReason = value.finishReason;
      this.messages = value.messages;
      this.businessState = value.businessState;
      this.usage = value.usage;
      this.fingerprint = value.fingerprint;
      this.savedAt = value.savedAt;
      this.runConfig = value.runConfig;
      this.drift = value.drift;
      this.steps = value.steps;
    }

    /** Sets {@link Checkpoint#sessionId()}. */
    public Builder setSessionId(String sessionId) {
      this.sessionId = sessionId;
      return this;
    }

    /** Sets {@link Checkpoint#stepIndex()}. */
    public Builder setStepIndex(int stepIndex) {
      this.stepIndex = stepIndex;
      return this;
    }

    /** Sets {@link Checkpoint#run()}. */
    public Builder setRun(int run) {
      this.run = run;
      return this;
    }

    /** Sets {@link Checkpoint#status()}. */
    public Builder setStatus(RunStatus status) {
      this.status = status;
      return this;
    }

    /** Sets {@link Checkpoint#finishReason()}. */
    public Builder setFinishReason(String finishReason) {
      this.finishReason = finishReason;
      return this;
    }

    /** Sets {@link Checkpoint#messages()}. */
    public Builder setMessages(List<Message> messages) {
      this.messages = messages;
      return this;
    }

    /** Sets {@link Checkpoint#businessState()}. */
    public Builder setBusinessState(JsonNode businessState) {
      this.businessState = businessState;
      return this;
    }

    /** Sets {@link Checkpoint#usage()}. */
    public Builder setUsage(Usage usage) {
      this.usage = usage;
      return this;
    }

    /** Sets {@link Checkpoint#fingerprint()}. */
    public Builder setFingerprint(String fingerprint) {
      this.fingerprint = fingerprint;
      return this;
    }

    /** Sets {@link Checkpoint#savedAt()}. */
    public Builder setSavedAt(long savedAt) {
      this.savedAt = savedAt;
      return this;
    }

    /** Sets {@link Checkpoint#runConfig()}. */
    public Builder setRunConfig(JsonNode runConfig) {
      this.runConfig = runConfig;
      return this;
    }

    /** Sets {@link Checkpoint#drift()}. */
    public Builder setDrift(String drift) {
      this.drift = drift;
      return this;
    }

    /** Sets {@link Checkpoint#steps()}. */
    public Builder setSteps(List<StepRecord> steps) {
      this.steps = steps;
      return this;
    }

    /** The value. */
    public Checkpoint build() {
      return new Checkpoint(
          sessionId,
          stepIndex,
          run,
          status,
          finishReason,
          messages,
          businessState,
          usage,
          fingerprint,
          savedAt,
          runConfig,
          drift,
          steps);
    }
  }
}
