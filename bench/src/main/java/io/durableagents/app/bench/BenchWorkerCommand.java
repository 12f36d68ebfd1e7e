package io.durableagents.app.bench;

import io.durableagents.agent.Agent;
import io.durableagents.cli.ExitCodes;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.store.AgentStore;
import io.durableagents.store.AgentStores;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code agents bench worker}: a worker process the bench starts. By default the hand-written step
 * loops ({@link Baseline.Steps}, {@link Baseline.LocalSteps}) in a plain Temporal worker with the
 * SDK's default options and nothing of the plugin, so the bench compares the plugin with what a
 * team would write by hand rather than with code sharing the plugin's process; with {@code
 * --plugin} the plugin serving the step agents ({@link BenchAgents#steps}), as a team's worker
 * would, for the scale bench's several worker processes. It runs until its standard input closes
 * (the bench ended, however it ended).
 */
@Command(
    name = "worker",
    hidden = true,
    description =
        "A worker of the bench's baseline workflows or step agents (the bench starts it).")
public class BenchWorkerCommand implements Callable<Integer> {
  /** The line printed once the worker polls. */
  static final String READY = "bench worker ready";

  @Spec CommandSpec spec;

  @Option(names = "--temporal", required = true, paramLabel = "HOST:PORT")
  String temporal;

  @Option(names = "--namespace", defaultValue = "default", paramLabel = "NS")
  String namespace;

  @Option(names = "--task-queue", required = true, paramLabel = "QUEUE")
  String taskQueue;

  @Option(names = "--plugin", description = "Serve the step agents instead of the baseline.")
  boolean plugin;

  @Option(names = "--projection", paramLabel = "JDBC_URL", description = "With --plugin.")
  String projection;

  @Option(
      names = "--steps",
      defaultValue = "10",
      paramLabel = "N",
      description = "With --plugin: tool-calling steps per session.")
  int steps;

  /**
   * Starts {@code agents bench worker ARGS} in a JVM of its own, with the JVM's defaults, its
   * output in {@code dir/NAME.log}, and returns once it polls.
   *
   * @param args {@code --temporal}, {@code --task-queue} and the rest
   */
  static AgentsCommandProcess launch(Path dir, String name, List<String> args) {
    List<String> command = new ArrayList<>(List.of("bench", "worker"));
    command.addAll(args);
    AgentsCommandProcess process =
        AgentsCommandProcess.start(
            name, dir, dir.resolve(name + ".log"), List.of(), command, Map.of());
    try {
      if (!process.awaitReady(READY, Duration.ofMinutes(2))) {
        throw new IllegalStateException(name + " did not start:\n" + process.tail(20));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    return process;
  }

  @Override
  public Integer call() throws IOException {
    WorkflowServiceStubs service =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(temporal).build());
    WorkflowClient client =
        WorkflowClient.newInstance(
            service, WorkflowClientOptions.newBuilder().setNamespace(namespace).build());
    AgentStore store = null;
    WorkerFactory factory;
    if (plugin) {
      store = AgentStores.open(projection);
      AgentsPluginOptions.Builder options = AgentsPluginOptions.newBuilder().setStore(store);
      for (Agent agent : BenchAgents.steps(steps)) {
        options.addAgent(agent);
      }
      factory =
          WorkerFactory.newInstance(
              client,
              WorkerFactoryOptions.newBuilder()
                  .setPlugins(new AgentsPlugin(options.build()))
                  .build());
      factory.newWorker(taskQueue);
    } else {
      factory = WorkerFactory.newInstance(client);
      Worker worker = factory.newWorker(taskQueue);
      worker.registerWorkflowImplementationTypes(
          Baseline.StepsImpl.class, Baseline.LocalStepsImpl.class);
      worker.registerActivitiesImplementations(new Baseline.ActivitiesImpl(new ProbeClock()));
    }
    factory.start();
    PrintWriter out = spec.commandLine().getOut();
    out.println(READY + " on " + taskQueue);
    out.flush();
    while (System.in.read() != -1) {
      // The bench never writes; the end of input is its end.
    }
    factory.shutdownNow();
    service.shutdownNow();
    if (store != null) {
      store.close();
    }
    return ExitCodes.OK;
  }
}
