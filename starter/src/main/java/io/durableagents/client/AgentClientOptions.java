package io.durableagents.client;

import java.util.Objects;

/**
 * Options of {@link AgentClient}: the task queue the agent workers poll and, optionally, the
 * projection the client reads transcripts from. Build with {@link #newBuilder()}.
 */
public final class AgentClientOptions {
  public static final String DEFAULT_TASK_QUEUE = "agents";

  private final String taskQueue;
  private final ProjectionReader projection;

  private AgentClientOptions(Builder builder) {
    this.taskQueue = builder.taskQueue;
    this.projection = builder.projection;
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

  public static final class Builder {
    private String taskQueue = DEFAULT_TASK_QUEUE;
    private ProjectionReader projection;

    private Builder() {}

    public Builder taskQueue(String taskQueue) {
      this.taskQueue = Objects.requireNonNull(taskQueue, "taskQueue");
      return this;
    }

    public Builder projection(ProjectionReader projection) {
      this.projection = Objects.requireNonNull(projection, "projection");
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
