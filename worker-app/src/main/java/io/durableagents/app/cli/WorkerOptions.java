package io.durableagents.app.cli;

import io.durableagents.app.WorkerConfig;
import io.durableagents.app.agents.AgentsFile;
import io.durableagents.app.agents.ToolCatalog;
import io.durableagents.cli.ConnectionOptions;
import io.durableagents.cli.ConnectionSettings;
import io.durableagents.cli.EnvironmentDefaults;
import io.temporal.common.WorkerDeploymentVersion;
import java.nio.file.Path;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Options of the worker commands ({@code worker}, {@code dev}): where to connect, the task queue,
 * the projection, the model ({@code --model} / {@code AGENTS_MODEL}), the agents ({@code --agents}
 * / {@code AGENTS_FILE}, default the demo agent), the optional events endpoint ({@code
 * --http-port}) and the worker deployment version ({@code --deployment} with {@code --build-id},
 * env {@code AGENTS_DEPLOYMENT_NAME} / {@code AGENTS_BUILD_ID}).
 */
public class WorkerOptions {
  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Mixin ConnectionOptions connection;

  @Mixin HistoryLimitOption historyLimit;

  @Option(
      names = "--http-port",
      paramLabel = "PORT",
      description =
          "Stream model deltas as server-sent events at http://127.0.0.1:PORT/sessions/{id}/events (default: off).")
  Integer httpPort;

  @Option(
      names = "--model",
      paramLabel = "SPEC",
      description =
          "Model the agents use: scripted:PATH (a script file, see docs/models.md), openai:MODEL or anthropic:MODEL (env AGENTS_MODEL; default: the concierge demo script).")
  String model;

  @Option(
      names = "--deployment",
      paramLabel = "NAME",
      description =
          "Run a versioned worker of this worker deployment, with --build-id; sessions stay on the version they started on (env AGENTS_DEPLOYMENT_NAME; default: an unversioned worker; see docs/deploys.md).")
  String deployment;

  @Option(
      names = "--build-id",
      paramLabel = "ID",
      description =
          "The build id of this worker's version in its --deployment (env AGENTS_BUILD_ID).")
  String buildId;

  @Option(
      names = "--agents",
      paramLabel = "FILE",
      description =
          "Serve the agents defined in FILE (YAML, or JSON for *.json; see docs/agents-file.md), checked at start (env AGENTS_FILE; default: the concierge demo agent).")
  String agentsFile;

  /** Loaded once: {@code dev} checks its options before it starts a server, then uses them. */
  private AgentsFile agents;

  /** The connection options: Temporal address, namespace, task queue and projection. */
  public ConnectionOptions connection() {
    return connection;
  }

  /** {@code --model} (or {@code AGENTS_MODEL}) as given; null for the demo script. */
  public String model() {
    return model;
  }

  /** {@code --http-port}, or null when the events endpoint is off. */
  public Integer httpPort() {
    return httpPort;
  }

  /** The worker configuration these options describe. */
  public WorkerConfig config() {
    return config(connection.settings());
  }

  /**
   * The worker configuration these options describe, connecting to Temporal with {@code temporal}.
   */
  public WorkerConfig config(ConnectionSettings temporal) {
    if (httpPort != null && (httpPort < 1 || httpPort > 65535)) {
      throw new ParameterException(
          mixee.commandLine(), "--http-port must be between 1 and 65535, got " + httpPort);
    }
    if (model != null && model.isBlank()) {
      // Blank would mean the demo's scripted model: a real worker serving scripted answers.
      throw new ParameterException(
          mixee.commandLine(),
          "--model needs a spec: scripted:PATH, openai:MODEL or anthropic:MODEL, got "
              + (model.isEmpty() ? "an empty one" : "only whitespace")
              + " (leave it out for the demo script).");
    }
    WorkerDeploymentVersion version;
    try {
      version = WorkerConfig.deployment(deployment, buildId);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(mixee.commandLine(), e.getMessage(), e);
    }
    return new WorkerConfig(
        temporal,
        connection.taskQueue(),
        connection.projection(),
        model == null ? null : model.strip(),
        httpPort,
        historyLimit.storeOptions(),
        version,
        agents());
  }

  /**
   * The agents of {@code --agents}, else of {@code AGENTS_FILE}, loaded and checked; null for the
   * demo agent. A problem of the file is an {@code AgentsFileException}: exit code 2, naming the
   * field and line.
   */
  private AgentsFile agents() {
    if (agents != null) {
      return agents;
    }
    String file =
        agentsFile != null
            ? agentsFile
            : EnvironmentDefaults.environmentOf(mixee).get(AgentsFile.VARIABLE);
    if (file == null || file.isBlank()) {
      if (agentsFile != null) {
        throw new ParameterException(mixee.commandLine(), "--agents needs a file name");
      }
      return null;
    }
    agents =
        AgentsFile.load(
            Path.of(file.strip()), ToolCatalog.installed(EnvironmentDefaults.environmentOf(mixee)));
    return agents;
  }
}
