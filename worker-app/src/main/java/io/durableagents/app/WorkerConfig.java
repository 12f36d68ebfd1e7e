package io.durableagents.app;

import io.durableagents.app.agents.AgentsFile;
import io.durableagents.app.agents.ToolCatalog;
import io.durableagents.cli.ConnectionSettings;
import io.durableagents.store.StoreOptions;
import io.temporal.common.WorkerDeploymentVersion;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * Where a worker connects and what it serves. Each setting has a CLI option and an environment
 * variable of the same meaning; the CLI option wins.
 *
 * @param temporal where and how to reach Temporal: {@code TEMPORAL_ADDRESS} (default {@code
 *     127.0.0.1:7233}), {@code TEMPORAL_NAMESPACE} (default {@code default}), API key, TLS and
 *     {@code temporal.toml} profile; see {@link ConnectionSettings}
 * @param taskQueue {@code AGENTS_TASK_QUEUE}, default {@code agents}
 * @param projectionUrl {@code AGENTS_PROJECTION_URL}, default {@code
 *     jdbc:sqlite:.agents/projection.db}
 * @param modelSpec {@code AGENTS_MODEL}, default null: the demo agent's built-in script
 * @param httpPort {@code --http-port}: the port of the server-sent events endpoint of model deltas
 *     on 127.0.0.1 ({@code GET /sessions/{id}/events}); null (the default) serves none, 0 a free
 *     port
 * @param storeOptions {@code --history-limit} / {@code AGENTS_HISTORY_LIMIT}: the projection's
 *     history entries kept per session (default 50)
 * @param deployment {@code --deployment} / {@code AGENTS_DEPLOYMENT_NAME} with {@code --build-id} /
 *     {@code AGENTS_BUILD_ID}: the worker deployment version this worker polls as, with Temporal's
 *     worker versioning on and sessions pinned to it (see docs/deploys.md); null (the default) runs
 *     an unversioned worker
 * @param agents {@code --agents FILE} / {@code AGENTS_FILE}: the agents of an agents file, loaded
 *     and checked; null (the default) serves the demo agent
 */
public record WorkerConfig(
    ConnectionSettings temporal,
    String taskQueue,
    String projectionUrl,
    String modelSpec,
    Integer httpPort,
    StoreOptions storeOptions,
    WorkerDeploymentVersion deployment,
    AgentsFile agents) {

  /** The Temporal address when none is set: a local dev server. */
  public static final String DEFAULT_ADDRESS = ConnectionSettings.DEFAULT_ADDRESS;

  /** The Temporal namespace when none is set. */
  public static final String DEFAULT_NAMESPACE = ConnectionSettings.DEFAULT_NAMESPACE;

  /** The task queue when {@code AGENTS_TASK_QUEUE} is not set. */
  public static final String DEFAULT_TASK_QUEUE = "agents";

  /**
   * The projection URL when {@code AGENTS_PROJECTION_URL} is not set: SQLite in the working
   * directory.
   */
  public static final String DEFAULT_PROJECTION = "jdbc:sqlite:.agents/projection.db";

  /** The environment variable of the worker deployment's name ({@code --deployment}). */
  public static final String DEPLOYMENT_NAME_VARIABLE = "AGENTS_DEPLOYMENT_NAME";

  /** The environment variable of the worker's build id in its deployment ({@code --build-id}). */
  public static final String BUILD_ID_VARIABLE = "AGENTS_BUILD_ID";

  /**
   * Refuses a null connection, task queue or projection URL and an HTTP port outside 0-65535; null
   * store options become the defaults.
   */
  public WorkerConfig {
    Objects.requireNonNull(temporal, "temporal");
    Objects.requireNonNull(taskQueue, "taskQueue");
    Objects.requireNonNull(projectionUrl, "projectionUrl");
    if (httpPort != null && (httpPort < 0 || httpPort > 65535)) {
      throw new IllegalArgumentException("HTTP port must be between 0 and 65535, got " + httpPort);
    }
    storeOptions = storeOptions == null ? StoreOptions.getDefaultInstance() : storeOptions;
  }

  /** An unversioned worker serving the demo agent. */
  public WorkerConfig(
      ConnectionSettings temporal,
      String taskQueue,
      String projectionUrl,
      String modelSpec,
      Integer httpPort,
      StoreOptions storeOptions) {
    this(temporal, taskQueue, projectionUrl, modelSpec, httpPort, storeOptions, null, null);
  }

  /** A plain connection to {@code temporalAddress}, with the default store options. */
  public WorkerConfig(
      String temporalAddress,
      String namespace,
      String taskQueue,
      String projectionUrl,
      String modelSpec,
      Integer httpPort) {
    this(
        ConnectionSettings.plain(temporalAddress, namespace),
        taskQueue,
        projectionUrl,
        modelSpec,
        httpPort,
        null);
  }

  /** A plain connection to {@code temporalAddress}, without the events endpoint. */
  public WorkerConfig(
      String temporalAddress,
      String namespace,
      String taskQueue,
      String projectionUrl,
      String modelSpec) {
    this(temporalAddress, namespace, taskQueue, projectionUrl, modelSpec, null);
  }

  /**
   * The defaults, overridden by the environment variables that are set (and their profile); {@code
   * AGENTS_FILE} is loaded and checked here.
   */
  public static WorkerConfig fromEnvironment(Map<String, String> env) {
    String agentsFile = env.get(AgentsFile.VARIABLE);
    return new WorkerConfig(
        ConnectionSettings.fromEnvironment(env),
        env.getOrDefault("AGENTS_TASK_QUEUE", DEFAULT_TASK_QUEUE),
        env.getOrDefault("AGENTS_PROJECTION_URL", DEFAULT_PROJECTION),
        env.get("AGENTS_MODEL"),
        null,
        StoreOptions.fromEnvironment(env),
        deploymentFromEnvironment(env),
        agentsFile == null || agentsFile.isBlank()
            ? null
            : AgentsFile.load(Path.of(agentsFile.strip()), ToolCatalog.installed(env)));
  }

  /**
   * The deployment version of {@code AGENTS_DEPLOYMENT_NAME} and {@code AGENTS_BUILD_ID}, or null
   * when neither is set.
   *
   * @throws IllegalArgumentException when only one of them is set
   */
  public static WorkerDeploymentVersion deploymentFromEnvironment(Map<String, String> env) {
    return deployment(env.get(DEPLOYMENT_NAME_VARIABLE), env.get(BUILD_ID_VARIABLE));
  }

  /**
   * The deployment version of {@code name} and {@code buildId} (blank counts as unset), or null
   * when neither is given.
   *
   * @throws IllegalArgumentException when only one of them is given
   */
  public static WorkerDeploymentVersion deployment(String name, String buildId) {
    boolean hasName = name != null && !name.isBlank();
    boolean hasBuild = buildId != null && !buildId.isBlank();
    if (!hasName && !hasBuild) {
      return null;
    }
    if (!hasName || !hasBuild) {
      throw new IllegalArgumentException(
          "A versioned worker needs both --deployment ("
              + DEPLOYMENT_NAME_VARIABLE
              + ") and --build-id ("
              + BUILD_ID_VARIABLE
              + "); only "
              + (hasName ? "the deployment name" : "the build id")
              + " is set.");
    }
    return new WorkerDeploymentVersion(name.strip(), buildId.strip());
  }

  /** The Temporal address of {@link #temporal()}. */
  public String temporalAddress() {
    return temporal.address();
  }

  /** The Temporal namespace of {@link #temporal()}. */
  public String namespace() {
    return temporal.namespace();
  }

  /** With a plain connection to {@code address} (a local server) in the same namespace. */
  public WorkerConfig withTemporalAddress(String address) {
    return withTemporal(ConnectionSettings.plain(address, namespace()));
  }

  /** With the connection {@code settings} instead. */
  public WorkerConfig withTemporal(ConnectionSettings settings) {
    return new WorkerConfig(
        settings, taskQueue, projectionUrl, modelSpec, httpPort, storeOptions, deployment, agents);
  }

  /** With the projection at {@code url} instead. */
  public WorkerConfig withProjectionUrl(String url) {
    return new WorkerConfig(
        temporal, taskQueue, url, modelSpec, httpPort, storeOptions, deployment, agents);
  }

  /** With the model {@code spec} instead (null: the demo script). */
  public WorkerConfig withModelSpec(String spec) {
    return new WorkerConfig(
        temporal, taskQueue, projectionUrl, spec, httpPort, storeOptions, deployment, agents);
  }

  /** With the events endpoint on {@code port} (null: none). */
  public WorkerConfig withHttpPort(Integer port) {
    return new WorkerConfig(
        temporal, taskQueue, projectionUrl, modelSpec, port, storeOptions, deployment, agents);
  }

  /** As the worker deployment version {@code version} (null: an unversioned worker). */
  public WorkerConfig withDeployment(WorkerDeploymentVersion version) {
    return new WorkerConfig(
        temporal, taskQueue, projectionUrl, modelSpec, httpPort, storeOptions, version, agents);
  }

  /** Serving the agents of {@code file} (null: the demo agent). */
  public WorkerConfig withAgents(AgentsFile file) {
    return new WorkerConfig(
        temporal, taskQueue, projectionUrl, modelSpec, httpPort, storeOptions, deployment, file);
  }
}
