package io.durableagents.client;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Options of {@link AgentClient}: the task queue the agent workers poll, optionally the projection
 * the client reads transcripts from, and how long a request to a recovering session is retried.
 * Built like Temporal's own options:
 *
 * <pre>{@code
 * AgentClientOptions options = AgentClientOptions.newBuilder()
 *     .setTaskQueue("agents")
 *     .setProjection(ProjectionReader.open("jdbc:sqlite:.agents/projection.db"))
 *     .build();
 * }</pre>
 */
public final class AgentClientOptions {
  /** The task queue sessions run on unless set: {@value}. */
  public static final String DEFAULT_TASK_QUEUE = "agents";

  /** How long a request refused while the session recovers is retried, unless set. */
  public static final Duration DEFAULT_RECOVERY_TIMEOUT = Duration.ofMinutes(2);

  private static final Logger log = LoggerFactory.getLogger(AgentClient.class);

  /** Logs the failure as a warning, the result goes on without messages. */
  private static final Consumer<AgentClientException> LOG_PROJECTION_FAILURE =
      new Consumer<>() {
        @Override
        public void accept(AgentClientException e) {
          log.warn("The run's messages are left out: {}", e.getMessage());
        }

        @Override
        public String toString() {
          return "log a warning";
        }
      };

  private static final AgentClientOptions DEFAULT_INSTANCE = newBuilder().build();

  private final String taskQueue;
  private final ProjectionReader projection;
  private final Consumer<AgentClientException> projectionFailureListener;
  private final Duration recoveryTimeout;

  private AgentClientOptions(
      String taskQueue,
      ProjectionReader projection,
      Consumer<AgentClientException> projectionFailureListener,
      Duration recoveryTimeout) {
    this.taskQueue = taskQueue;
    this.projection = projection;
    this.projectionFailureListener = projectionFailureListener;
    this.recoveryTimeout = recoveryTimeout;
  }

  /** A builder with every option at its default. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** A builder that starts from {@code options}, to change some of them. */
  public static Builder newBuilder(AgentClientOptions options) {
    return new Builder(options);
  }

  /** The options of a client of the default task queue that reads no projection. */
  public static AgentClientOptions getDefaultInstance() {
    return DEFAULT_INSTANCE;
  }

  /** {@link #newBuilder(AgentClientOptions)} of these options. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The task queue the agent workers poll; sessions the client starts run there. */
  public String getTaskQueue() {
    return taskQueue;
  }

  /** The reader that fills {@code RunResult.messages}; null leaves them out. */
  public ProjectionReader getProjection() {
    return projection;
  }

  /**
   * Hears why the messages of a run result could not be read from the projection after the session
   * took a send's input; the result is returned without them. Default: a warning in the log.
   */
  public Consumer<AgentClientException> getProjectionFailureListener() {
    return projectionFailureListener;
  }

  /**
   * How long the client retries a request that Temporal refuses because the session's workflow task
   * keeps failing (a worker was killed while running it): decisions, sends, waits for a run,
   * cancels and forks, with waits from 200 ms doubling to 5 s. When it has passed, the caller gets
   * {@link SessionRecoveringException}. Zero: not retried. Default: {@link
   * #DEFAULT_RECOVERY_TIMEOUT}.
   */
  public Duration getRecoveryTimeout() {
    return recoveryTimeout;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof AgentClientOptions that)) {
      return false;
    }
    return taskQueue.equals(that.taskQueue)
        && Objects.equals(projection, that.projection)
        && projectionFailureListener.equals(that.projectionFailureListener)
        && recoveryTimeout.equals(that.recoveryTimeout);
  }

  @Override
  public int hashCode() {
    return Objects.hash(taskQueue, projection, projectionFailureListener, recoveryTimeout);
  }

  @Override
  public String toString() {
    return "AgentClientOptions{taskQueue='"
        + taskQueue
        + "', projection="
        + projection
        + ", projectionFailureListener="
        + projectionFailureListener
        + ", recoveryTimeout="
        + recoveryTimeout
        + "}";
  }

  /** Builds {@link AgentClientOptions}; a setter given null restores the default. */
  public static final class Builder {
    private String taskQueue;
    private ProjectionReader projection;
    private Consumer<AgentClientException> projectionFailureListener;
    private Duration recoveryTimeout;

    private Builder() {}

    private Builder(AgentClientOptions options) {
      Objects.requireNonNull(options, "options");
      taskQueue = options.taskQueue;
      projection = options.projection;
      projectionFailureListener = options.projectionFailureListener;
      recoveryTimeout = options.recoveryTimeout;
    }

    /**
     * The task queue the agent workers poll, where the sessions the client starts (and forks) run.
     * Default (null): {@value AgentClientOptions#DEFAULT_TASK_QUEUE}, the workers' default.
     */
    public Builder setTaskQueue(String taskQueue) {
      this.taskQueue = taskQueue;
      return this;
    }

    /**
     * The projection the client reads transcripts from: it fills {@code RunResult.messages}, and
     * {@code history}, {@code approvals}, {@code fork} and {@code compare} need it. Default (null):
     * none; results come without messages.
     */
    public Builder setProjection(ProjectionReader projection) {
      this.projection = projection;
      return this;
    }

    /**
     * Hears why a run's messages could not be read from the projection after the session took the
     * input; the call still returns its result (without them), since a retry would send the input
     * again. Default (null): a warning in the log.
     */
    public Builder setProjectionFailureListener(Consumer<AgentClientException> listener) {
      this.projectionFailureListener = listener;
      return this;
    }

    /**
     * How long a request refused while the session recovers from a failed workflow task is retried
     * (see {@link AgentClientOptions#getRecoveryTimeout()}). Zero: not retried. Default (null):
     * {@link AgentClientOptions#DEFAULT_RECOVERY_TIMEOUT}.
     */
    public Builder setRecoveryTimeout(Duration recoveryTimeout) {
      this.recoveryTimeout = recoveryTimeout;
      return this;
    }

    /**
     * The options, with the defaults for what was not set.
     *
     * @throws IllegalArgumentException for a blank task queue or a negative recovery timeout
     */
    public AgentClientOptions build() {
      String queue = taskQueue == null ? DEFAULT_TASK_QUEUE : taskQueue;
      if (queue.isBlank()) {
        throw new IllegalArgumentException("taskQueue must not be blank");
      }
      Duration recovery = recoveryTimeout == null ? DEFAULT_RECOVERY_TIMEOUT : recoveryTimeout;
      if (recovery.isNegative()) {
        throw new IllegalArgumentException("recoveryTimeout must not be negative, got " + recovery);
      }
      return new AgentClientOptions(
          queue,
          projection,
          projectionFailureListener == null ? LOG_PROJECTION_FAILURE : projectionFailureListener,
          recovery);
    }
  }
}
