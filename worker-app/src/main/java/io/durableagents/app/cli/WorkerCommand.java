package io.durableagents.app.cli;

import io.durableagents.app.AgentWorker;
import io.durableagents.app.WorkerConfig;
import io.durableagents.projection.ProjectionUrl;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code agents worker}: a worker against an existing Temporal, until Ctrl-C. */
@Command(
    name = "worker",
    description = {
      "Run a worker against an existing Temporal until Ctrl-C.",
      "Run several on the same task queue to share the load."
    },
    footer = "")
public class WorkerCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin WorkerOptions options;

  @Override
  public Integer call() {
    WorkerConfig config = options.config();
    if (config.httpPort() != null) {
      Ports.requireFree(config.httpPort(), "--http-port", Ports.EVENTS_GUESS); // before connecting
    }
    PrintWriter out = spec.commandLine().getOut();
    Foreground foreground = Foreground.install(spec.commandLine().getErr());
    foreground.own(AgentWorker.start(config));
    out.println(readyLine(config));
    out.println("Ctrl-C to stop.");
    out.flush();
    foreground.awaitShutdown();
    return 0;
  }

  /**
   * {@code worker polling task queue 'agents' on 127.0.0.1:7233, projection jdbc:sqlite:...}, and
   * the agents of an agents file.
   */
  static String readyLine(WorkerConfig config) {
    return "worker polling task queue '"
        + config.taskQueue()
        + "' on "
        + config.temporal().describe()
        + ", projection "
        + ProjectionUrl.describe(config.projectionUrl())
        + (config.modelSpec() == null ? "" : ", model " + config.modelSpec())
        + (config.deployment() == null
            ? ""
            : ", deployment version " + config.deployment().toCanonicalString() + " (pinned)")
        + (config.agents() == null
            ? ""
            : ", agents "
                + String.join(", ", config.agents().agentNames())
                + " from "
                + config.agents().source())
        + (config.httpPort() == null
            ? ""
            : ", deltas at http://127.0.0.1:" + config.httpPort() + "/sessions/{id}/events");
  }
}
