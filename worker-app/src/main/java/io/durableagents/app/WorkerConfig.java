package io.durableagents.app;

import io.durableagents.store.StoreOptions;
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
 * @param httpPort {@code --http-port}: the port of the server-sent events endpoint of model deltas
 *     on 127.0.0.1 ({@code GET /sessions/{id}/events}); null (the default) serves none, 0 a free port
 * @param storeOptions {@code --history-limit} / {@code AGENTS_HISTORY_LIMIT}: the projection's
 *     history entries kept per session (default 50)
 */
public record WorkerConfig(
    String temporalAddress,
    String namespace,
    String taskQueue,
    String projectionUrl,
    String modelSpec,
    Integer httpPort,
    StoreOptions storeOptions) {

  public static final String DEFAULT_ADDRESS = "127.0.0.1:7233";
  public static final String DEFAULT_NAMESPACE = "default";
  public static final String DEFAULT_TASK_QUEUE = "agents";
  public static final String DEFAULT_PROJECTION = "jdbc:sqlite:.agents/projection.db";

  public WorkerConfig {
    Objects.requireNonNull(temporalAddress, "temporalAddress");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(taskQueue, "taskQueue");
    Objects.requireNonNull(projectionUrl, "projectionUrl");
    if (httpPort != null && (httpPort < 0 || httpPort > 65535)) {
      throw new IllegalArgumentException("HTTP port must be between 0 and 65535, got " + httpPort);
    }
    storeOptions = storeOptions == null ? StoreOptions.getDefaultInstance() : storeOptions;
  }

  /** With the default store options. */
  public WorkerConfig(
      String temporalAddress,
      String namespace,
      String taskQueue,
      String projectionUrl,
      String modelSpec,
      Integer httpPort) {
    this(temporalAddress, namespace, taskQueue, projectionUrl, modelSpec, httpPort, null);
  }

  /** Without the events endpoint. */
  public WorkerConfig(
      String temporalAddress, String namespace, String taskQueue, String projectionUrl, String modelSpec) {
    this(temporalAddress, namespace, taskQueue, projectionUrl, modelSpec, null, null);
  }

  /** The defaults, overridden by the environment variables that are set. */
  public static WorkerConfig fromEnvironment(Map<String, String> env) {
    return new WorkerConfig(
        env.getOrDefault("TEMPORAL_ADDRESS", DEFAULT_ADDRESS),
        env.getOrDefault("TEMPORAL_NAMESPACE", DEFAULT_NAMESPACE),
        env.getOrDefault("AGENTS_TASK_QUEUE", DEFAULT_TASK_QUEUE),
        env.getOrDefault("AGENTS_PROJECTION_URL", DEFAULT_PROJECTION),
        env.get("AGENTS_MODEL"),
        null,
        StoreOptions.fromEnvironment(env));
  }

  public WorkerConfig withTemporalAddress(String address) {
    return new WorkerConfig(address, namespace, taskQueue, projectionUrl, modelSpec, httpPort, storeOptions);
  }

  public WorkerConfig withProjectionUrl(String url) {
    return new WorkerConfig(temporalAddress, namespace, taskQueue, url, modelSpec, httpPort, storeOptions);
  }

  public WorkerConfig withModelSpec(String spec) {
    return new WorkerConfig(temporalAddress, namespace, taskQueue, projectionUrl, spec, httpPort, storeOptions);
  }

  /** With the events endpoint on {@code port} (null: none). */
  public WorkerConfig withHttpPort(Integer port) {
    return new WorkerConfig(temporalAddress, namespace, taskQueue, projectionUrl, modelSpec, port, storeOptions);
  }
}
