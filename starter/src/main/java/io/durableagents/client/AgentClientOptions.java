package io.durableagents.client;

import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Options of {@link AgentClient}: the task queue the agent workers poll and, optionally, the
 * projection the client reads transcripts from. Build with {@link #newBuilder()}.
 */
public final class AgentClientOptions {
  public static final String DEFAULT_TASK_QUEUE = "agents";
  private static final Logger log = LoggerFactory.getLogger(AgentClient.class);
  /** Logs the failure as a warning, the result goes on without messages. */
  private static final Consumer<AgentClientException> LOG_PROJECTION_FAILURE =
      e -> log.warn("The run's messages are left out: {}", e.getMessage());

  private final String taskQueue;
  private final ProjectionReader projection;
  private final Consumer<AgentClientException> projectionFailureListener;

  private AgentClientOptions(Builder builder) {
    this.taskQueue = builder.taskQueue;
    this.projection = builder.projection;
    this.projectionFailureListener = builder.projectionFailureListener;
  }

  public static Builder newBuilder() {
    return new Builder();
  }

  public static AgentClientOptions getDefaultInstance() {
    return newBuilder().build();
  }

  public String taskQueue() {
    return taskQueue;
  }

  /** The reader that fills {@code RunResult.messages}; null leaves them out. */
  public ProjectionReader projection() {
    return projection;
  }

  /**
   * Hears why the messages of a run result could not be read from the projection after the
   * session took a send's input; the result is returned without them. Default: a warning in the
   * log.
   */
  public Consumer<AgentClientException> projectionFailureListener() {
    return projectionFailureListener;
  }

  public static final class Builder {
    private String taskQueue = DEFAULT_TASK_QUEUE;
    private ProjectionReader projection;
    private Consumer<AgentClientException> projectionFailureListener = LOG_PROJECTION_FAILURE;

    private Builder() {}

    public Builder taskQueue(String taskQueue) {
      this.taskQueue = Objects.requireNonNull(taskQueue, "taskQueue");
      return this;
    }

    public Builder projection(ProjectionReader projection) {
      this.projection = Objects.requireNonNull(projection, "projection");
      return this;
    }

    /** See {@link AgentClientOptions#projectionFailureListener()}. */
    public Builder projectionFailureListener(Consumer<AgentClientException> listener) {
      this.projectionFailureListener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    public AgentClientOptions build() {
      if (taskQueue.isBlank()) {
        throw new IllegalArgumentException("taskQueue must not be blank");
      }
      return new AgentClientOptions(this);
    }
  }
}
