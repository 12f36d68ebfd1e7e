package io.durableagents.app;

import java.util.Map;
import java.util.Objects;

/**
 * Where a worker connects and what it serves. Each setting has a CLI option and an environment
 * variable of the same meaning; the CLI option wins.
 *
 * @param temporalAddress {@code TEMPORAL_ADDRESS}, default {@code 127.0.0.1:7233}
 * @param namespace {@code TEMPORAL_NAMESPACE}, default {@code default}
 * @param taskQueue {@code AGENTS_TASK_QUEUE}, default {@code agents}
 * @param projectionUrl {@code AGENTS_PROJECTION_URL}, default {@code jdbc:sqlite:.agents/projection.db}
 * @param modelSpec {@code AGENTS_MODEL}, default null: the demo agent's built-in script
 */
public record WorkerConfig(
    String temporalAddress, String namespace, String taskQueue, String projectionUrl, String modelSpec) {

  public static final String DEFAULT_ADDRESS = "127.0.0.1:7233";
  public static final String DEFAULT_NAMESPACE = "default";
  public static final String DEFAULT_TASK_QUEUE = "agents";
  public static final String DEFAULT_PROJECTION = "jdbc:sqlite:.agents/projection.db";

  public WorkerConfig {
    Objects.requireNonNull(temporalAddress, "temporalAddress");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(taskQueue, "taskQueue");
    Objects.requireNonNull(projectionUrl, "projectionUrl");
  }

  /** The defaults, overridden by the environment variables that are set. */
  public static WorkerConfig fromEnvironment(Map<String, String> env) {
    return new WorkerConfig(
        env.getOrDefault("TEMPORAL_ADDRESS", DEFAULT_ADDRESS),
        env.getOrDefault("TEMPORAL_NAMESPACE", DEFAULT_NAMESPACE),
        env.getOrDefault("AGENTS_TASK_QUEUE", DEFAULT_TASK_QUEUE),
        env.getOrDefault("AGENTS_PROJECTION_URL", DEFAULT_PROJECTION),
        env.get("AGENTS_MODEL"));
  }

  public WorkerConfig withTemporalAddress(String address) {
    return new WorkerConfig(address, namespace, taskQueue, projectionUrl, modelSpec);
  }

  public WorkerConfig withProjectionUrl(String url) {
    return new WorkerConfig(temporalAddress, namespace, taskQueue, url, modelSpec);
  }

  public WorkerConfig withModelSpec(String spec) {
    return new WorkerConfig(temporalAddress, namespace, taskQueue, projectionUrl, spec);
  }
}
