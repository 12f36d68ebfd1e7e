package io.durableagents.app.cli;

import io.durableagents.app.AgentWorker;
import io.durableagents.app.WorkerConfig;
import io.durableagents.cli.ConnectionOptions;
import io.durableagents.projection.ProjectionUrl;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code agents dev}: a Temporal server (see {@link LocalServerOptions}) plus a worker in one
 * process, until Ctrl-C.
 */
@Command(
    name = "dev",
    description = {
      "Run a Temporal server on 127.0.0.1:PORT and a worker on it until Ctrl-C: the Temporal CLI's",
      "dev server (Web UI, state in .agents/temporal-PORT.db) when the CLI is installed",
      "(scripts/install-temporal-cli), else the embedded in-memory test server.",
      "Then talk to it from another shell: ./agents send chat-1 \"hello\""
    },
    footer = "")
public class DevCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin LocalServerOptions server;

  @Mixin WorkerOptions options;

  @Override
  public Integer call() {
    for (String option : ConnectionOptions.TEMPORAL_OPTIONS) {
      if (!option.equals("--namespace")
          && spec.commandLine().getParseResult().hasMatchedOption(option)) {
        throw new ParameterException(
            spec.commandLine(),
            "dev runs its own Temporal server, so "
                + option
                + " does not apply: use --port, or"
                + " 'agents worker --temporal HOST:PORT' for an existing one.");
      }
    }
    options.config(
        options
            .connection()
            .plainSettings(
                ConnectionOptions.DEFAULT_TEMPORAL)); // checks them before anything starts
    Optional<Path> binary = server.validate();
    PrintWriter out = spec.commandLine().getOut();
    Foreground foreground = Foreground.install(spec.commandLine().getErr());
    String address = server.start(binary, foreground, out, spec.commandLine().getErr());
    WorkerConfig config = options.config(options.connection().plainSettings(address));
    foreground.own(AgentWorker.start(config));
    out.println(WorkerCommand.readyLine(config));
    out.println(
        "Try, in another shell: ./agents send"
            + clientOptions(config)
            + " chat-1 \"hello\"   (Ctrl-C to stop)");
    out.flush();
    foreground.awaitShutdown();
    return 0;
  }

  /** The options a client needs to reach this dev stack, beyond the defaults. */
  private String clientOptions(WorkerConfig config) {
    StringBuilder options = new StringBuilder();
    if (server.port() != 7233) {
      options.append(" --temporal ").append(config.temporalAddress());
    }
    if (!WorkerConfig.DEFAULT_NAMESPACE.equals(config.namespace())) {
      options.append(" --namespace ").append(config.namespace());
    }
    if (!WorkerConfig.DEFAULT_TASK_QUEUE.equals(config.taskQueue())) {
      options.append(" --task-queue ").append(config.taskQueue());
    }
    if (!WorkerConfig.DEFAULT_PROJECTION.equals(config.projectionUrl())) {
      options
          .append(" --projection '")
          .append(ProjectionUrl.describe(config.projectionUrl()))
          .append('\'');
    }
    return options.toString();
  }
}
