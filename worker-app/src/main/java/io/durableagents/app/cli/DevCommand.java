package io.durableagents.app.cli;

import io.durableagents.app.AgentWorker;
import io.durableagents.app.EmbeddedTemporalServer;
import io.durableagents.app.WorkerConfig;
import io.durableagents.cli.ConnectionOptions;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code agents dev}: the embedded Temporal server plus a worker in one process, until Ctrl-C. */
@Command(
    name = "dev",
    description = {
      "Run the embedded Temporal server on 127.0.0.1:PORT and a worker on it until Ctrl-C.",
      "Then talk to it from another shell: ./agents send chat-1 \"hello\""
    },
    footer = "")
public class DevCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--port", paramLabel = "PORT", defaultValue = "7233", description = "Port of the Temporal server (default: ${DEFAULT-VALUE}).")
  int port;

  @Mixin WorkerOptions options;

  @Override
  public Integer call() {
    Ports.requireValid(spec, port);
    for (String option : ConnectionOptions.TEMPORAL_OPTIONS) {
      if (!option.equals("--namespace") && spec.commandLine().getParseResult().hasMatchedOption(option)) {
        throw new ParameterException(
            spec.commandLine(),
            "dev runs its own Temporal server, so " + option + " does not apply: use --port, or"
                + " 'agents worker --temporal HOST:PORT' for an existing one.");
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    Foreground foreground = Foreground.install(spec.commandLine().getErr());
    EmbeddedTemporalServer server = foreground.own(EmbeddedTemporalServer.start(port));
    out.println("Temporal server listening on " + server.address());
    out.flush();
    WorkerConfig config = options.config(options.connection().plainSettings(server.address()));
    foreground.own(AgentWorker.start(config));
    out.println(WorkerCommand.readyLine(config));
    out.println("Try, in another shell: ./agents send" + clientOptions(config) + " chat-1 \"hello\"   (Ctrl-C to stop)");
    out.flush();
    foreground.awaitShutdown();
    return 0;
  }

  /** The options a client needs to reach this dev stack, beyond the defaults. */
  private String clientOptions(WorkerConfig config) {
    StringBuilder options = new StringBuilder();
    if (port != 7233) {
      options.append(" --temporal ").append(config.temporalAddress());
    }
    if (!WorkerConfig.DEFAULT_NAMESPACE.equals(config.namespace())) {
      options.append(" --namespace ").append(config.namespace());
    }
    if (!WorkerConfig.DEFAULT_TASK_QUEUE.equals(config.taskQueue())) {
      options.append(" --task-queue ").append(config.taskQueue());
    }
    if (!WorkerConfig.DEFAULT_PROJECTION.equals(config.projectionUrl())) {
      options.append(" --projection '").append(Ports.describeUrl(config.projectionUrl())).append('\'');
    }
    return options.toString();
  }
}
