package io.durableagents.app.cli;

import io.durableagents.app.WorkerConfig;
import io.durableagents.cli.ConnectionOptions;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Options of the worker commands ({@code worker}, {@code dev}): where to connect, the task queue,
 * the projection, and the model ({@code --model} / {@code AGENTS_MODEL}).
 */
public class WorkerOptions {
  @Mixin ConnectionOptions connection;

  @Option(
      names = "--model",
      paramLabel = "SPEC",
      description =
          "Model the agents use: scripted:PATH, a §5.2 script file (env AGENTS_MODEL; default: the concierge demo script).")
  String model;

  public ConnectionOptions connection() {
    return connection;
  }

  public String model() {
    return model;
  }

  /** The worker configuration these options describe. */
  public WorkerConfig config() {
    return new WorkerConfig(
        connection.temporal(),
        connection.namespace(),
        connection.taskQueue(),
        connection.projection(),
        model == null || model.isBlank() ? null : model.strip());
  }
}
