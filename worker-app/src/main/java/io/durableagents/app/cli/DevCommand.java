package io.durableagents.app.cli;

import io.durableagents.app.AgentWorker;
import io.durableagents.app.WorkerConfig;
import io.durableagents.app.console.ConsoleDeltaListener;
import io.durableagents.cli.ConnectionOptions;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.ProjectionReader;
import io.durableagents.console.AgentConsole;
import io.durableagents.console.ConsoleOptions;
import io.durableagents.projection.ProjectionUrl;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
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
      "dev server (Web UI, state in .agents/temporal-PORT.db), the CLI installed on first use",
      "(scripts/install-temporal-cli); the embedded in-memory test server with --embedded or",
      "when the install fails.",
      "A console (approvals inbox, sessions) on 127.0.0.1:8080 unless --console-port says otherwise.",
      "Then talk to it from another shell: ./agents send chat-1 \"hello\""
    },
    footer = "")
public class DevCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin LocalServerOptions server;

  @Mixin WorkerOptions options;

  @Option(
      names = "--console-port",
      paramLabel = "PORT",
      defaultValue = "8080",
      description =
          "Port of the console on 127.0.0.1 (default: ${DEFAULT-VALUE}; 0: any free port; -1: no"
              + " console).")
  int consolePort;

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
    if (consolePort > 0) {
      Ports.requireFree(consolePort, "--console-port"); // before a server and a worker start
    }
    if (options.httpPort() != null) {
      Ports.requireFree(options.httpPort(), "--http-port", Ports.EVENTS_GUESS);
    }
    PrintWriter out = spec.commandLine().getOut();
    Foreground foreground = Foreground.install(spec.commandLine().getErr());
    String address = server.start(binary, foreground, out);
    WorkerConfig config = options.config(options.connection().plainSettings(address));
    ConsoleDeltaListener deltas = ConsoleDeltaListener.unattached();
    AgentWorker worker = foreground.own(AgentWorker.start(config, List.of(deltas)));
    out.println(WorkerCommand.readyLine(config));
    if (consolePort >= 0) {
      AgentConsole console = foreground.own(startConsole(worker, config));
      deltas.attach(console);
      out.println(ConsoleCommand.readyLine(console));
    }
    out.println(
        "Try, in another shell: ./agents send"
            + clientOptions(config)
            + " chat-1 \"hello\"   (Ctrl-C to stop)");
    out.flush();
    foreground.awaitShutdown();
    return 0;
  }

  /** The back office on 127.0.0.1, on the worker's client and projection. */
  private AgentConsole startConsole(AgentWorker worker, WorkerConfig config) {
    ProjectionReader projection;
    try {
      projection = ProjectionReader.open(config.projectionUrl());
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(),
          "the console reads the projection from a database file or server: "
              + e.getMessage()
              + " (or run with --console-port -1).");
    }
    AgentClient agents =
        AgentClient.newInstance(
            worker.client(),
            AgentClientOptions.newBuilder()
                .setTaskQueue(config.taskQueue())
                .setProjection(projection)
                .build());
    return AgentConsole.start(
        agents,
        projection,
        ConsoleOptions.newBuilder()
            .setPort(consolePort)
            .setTemporalUiUrl(server.uiUrl())
            .setNamespace(config.namespace())
            .build());
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
