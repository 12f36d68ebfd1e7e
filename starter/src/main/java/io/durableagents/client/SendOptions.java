package io.durableagents.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.Objects;

/**
 * Options of {@link AgentClient#send}: which agent a new session runs and a per-run step budget
 * overriding the agent's (both apply only when the send creates the session; sends to a session
 * that exists keep the agent and budget it was started with), the run configuration and concurrency
 * key of the run the send starts, and when the send resumes a failed or cancelled run instead (its
 * idempotency key and resume window).
 *
 * <pre>{@code
 * RunResult result = agents.send("chat-42", "hello",
 *     SendOptions.newBuilder().setAgent("concierge").build());
 * }</pre>
 */
public final class SendOptions {
  private static final SendOptions DEFAULT_INSTANCE = newBuilder().build();

  private final String agent;
  private final Integer maxSteps;
  private final ObjectNode runConfig;
  private final String idempotencyKey;
  private final Duration resumeWindow;
  private final String concurrencyKey;

  private SendOptions(
      String agent,
      Integer maxSteps,
      ObjectNode runConfig,
      String idempotencyKey,
      Duration resumeWindow,
      String concurrencyKey) {
    this.agent = agent;
    this.maxSteps = maxSteps;
    this.runConfig = runConfig;
    this.idempotencyKey = idempotencyKey;
    this.resumeWindow = resumeWindow;
    this.concurrencyKey = concurrencyKey;
  }

  /** A builder with every option at its default. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** A builder that starts from {@code options}, to change some of them. */
  public static Builder newBuilder(SendOptions options) {
    return new Builder(options);
  }

  /** The options of a send that starts the worker's default agent with its own budget. */
  public static SendOptions getDefaultInstance() {
    return DEFAULT_INSTANCE;
  }

  /** {@link #newBuilder(SendOptions)} of these options. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The agent a new session runs, or null for the worker's default agent. */
  public String getAgent() {
    return agent;
  }

  /** The model-turn budget of each run of a new session, or null for the agent's own. */
  public Integer getMaxSteps() {
    return maxSteps;
  }

  /** The run configuration of the run this send starts, or null for none. */
  public ObjectNode getRunConfig() {
    return runConfig == null ? null : runConfig.deepCopy();
  }

  /** The idempotency key of this send, or null for none. */
  public String getIdempotencyKey() {
    return idempotencyKey;
  }

  /** How long after a failed or cancelled run this send resumes it, or null for the default. */
  public Duration getResumeWindow() {
    return resumeWindow;
  }

  /** The concurrency key of the run this send starts, or null for the agent's default. */
  public String getConcurrencyKey() {
    return concurrencyKey;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof SendOptions that)) {
      return false;
    }
    return Objects.equals(agent, that.agent)
        && Objects.equals(maxSteps, that.maxSteps)
        && Objects.equals(runConfig, that.runConfig)
        && Objects.equals(idempotencyKey, that.idempotencyKey)
        && Objects.equals(resumeWindow, that.resumeWindow)
        && Objects.equals(concurrencyKey, that.concurrencyKey);
  }

  @Override
  public int hashCode() {
    return Objects.hash(agent, maxSteps, runConfig, idempotencyKey, resumeWindow, concurrencyKey);
  }

  @Override
  public String toString() {
    return "SendOptions{agent="
        + (agent == null ? null : "'" + agent + "'")
        + ", maxSteps="
        + maxSteps
        + ", runConfig="
        + runConfig
        + ", idempotencyKey="
        + (idempotencyKey == null ? null : "'" + idempotencyKey + "'")
        + ", resumeWindow="
        + resumeWindow
        + ", concurrencyKey="
        + (concurrencyKey == null ? null : "'" + concurrencyKey + "'")
        + "}";
  }

  /** Builds {@link SendOptions}; a setter given null restores the default. */
  public static final class Builder {
    private String agent;
    private Integer maxSteps;
    private ObjectNode runConfig;
    private String idempotencyKey;
    private Duration resumeWindow;
    private String concurrencyKey;

    private Builder() {}

    private Builder(SendOptions options) {
      Objects.requireNonNull(options, "options");
      agent = options.agent;
      maxSteps = options.maxSteps;
      runConfig = options.runConfig;
      idempotencyKey = options.idempotencyKey;
      resumeWindow = options.resumeWindow;
      concurrencyKey = options.concurrencyKey;
    }

    /**
     * The agent a session started by this send runs (a name registered on the workers); checked
     * before sending, since a refused first send would still create the workflow. Only the send
     * that starts a session takes it: a send to a session that runs another agent is refused with
     * {@link SessionExistsException} (naming the session's own agent is fine). Default (null): the
     * worker's default agent.
     */
    public Builder setAgent(String agent) {
      this.agent = agent;
      return this;
    }

    /**
     * Overrides the agent's model-turn budget for every run of a session started by this send: 1 to
     * {@link io.durableagents.workflow.Limits#MAX_STEPS}, others are refused before sending. Like
     * {@link #setAgent}, taken only by the send that starts a session: a send to a session started
     * with another budget is refused. Default (null): the agent's budget.
     */
    public Builder setMaxSteps(Integer maxSteps) {
      this.maxSteps = maxSteps;
      return this;
    }

    /**
     * The run configuration of the run this send starts: a JSON object (e.g. {@code {"tier":
     * "gold"}}), saved with the run, handed to a dynamic agent's factory and part of the run's
     * fingerprint. A send that reaches a run in progress leaves that run's configuration as it is.
     * Default (null): none.
     */
    public Builder setRunConfig(ObjectNode runConfig) {
      this.runConfig = runConfig == null ? null : runConfig.deepCopy();
      return this;
    }

    /**
     * The idempotency key of this send (1 to {@link
     * io.durableagents.workflow.Limits#IDEMPOTENCY_KEY_CHARS} characters, no control characters;
     * others are refused before sending). When the session's last run failed or was cancelled and
     * was started by a send with the same key, a send of the same input resumes that run however
     * long ago it ended; a different key starts a new run even within the {@linkplain
     * #setResumeWindow resume window}. Default (null): none, the window decides.
     */
    public Builder setIdempotencyKey(String idempotencyKey) {
      this.idempotencyKey = idempotencyKey;
      return this;
    }

    /**
     * How long after a failed or cancelled run a send of the same input resumes it, with the budget
     * it has left, instead of adding the input again as a new run. {@link Duration#ZERO}: only a
     * matching {@linkplain #setIdempotencyKey idempotency key} resumes. Default (null): 10 minutes.
     *
     * @throws IllegalArgumentException for a negative window
     */
    public Builder setResumeWindow(Duration resumeWindow) {
      if (resumeWindow != null && resumeWindow.isNegative()) {
        throw new IllegalArgumentException(
            "resumeWindow must not be negative, got " + resumeWindow);
      }
      this.resumeWindow = resumeWindow;
      return this;
    }

    /**
     * The concurrency key of the run this send starts (e.g. {@code customer:42}): runs that share a
     * key run one at a time, first come first served, across all sessions and workers; a run whose
     * key is held waits with status {@code queued}. Wins over the agent's default key. At most
     * {@value io.durableagents.workflow.Limits#CONCURRENCY_KEY_CHARS} characters, no control
     * characters: others are refused with {@link InvalidInputException} before anything is sent. A
     * send that reaches a run in progress leaves that run's key as it is. Default (null): the
     * agent's default, if it has one.
     */
    public Builder setConcurrencyKey(String concurrencyKey) {
      this.concurrencyKey = concurrencyKey;
      return this;
    }

    /** The options. */
    public SendOptions build() {
      return new SendOptions(
          agent, maxSteps, runConfig, idempotencyKey, resumeWindow, concurrencyKey);
    }
  }
}
