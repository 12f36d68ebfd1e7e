package io.durableagents.app.bench;

import io.durableagents.cli.ExitCodes;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code agents bench baseline-worker}: the hand-written step loops ({@link Baseline.Steps}, {@link
 * Baseline.LocalSteps}) in a plain Temporal worker of their own, with the SDK's default options and
 * nothing of the plugin, so the bench compares the plugin with what a team would write by hand
 * rather than with code sharing the plugin's process. The bench starts it; it runs until its
 * standard input closes (the bench ended, however it ended).
 */
@Command(
    name = "baseline-worker",
    hidden = true,
    description = "The bench's hand-written baseline workflows in a plain worker (started by it).")
public class BaselineWorkerCommand implements Callable<Integer> {
  /** The line printed once the worker polls. */
  static final String READY = "baseline worker ready";

  @Spec CommandSpec spec;

  @Option(names = "--temporal", required = true, paramLabel = "HOST:PORT")
  String temporal;

  @Option(names = "--namespace", defaultValue = "default", paramLabel = "NS")
  String namespace;

  @Option(names = "--task-queue", required = true, paramLabel = "QUEUE")
  String taskQueue;

  @Override
  public Integer call() throws IOException {
    WorkflowServiceStubs service =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(temporal).build());
    WorkflowClient client =
        WorkflowClient.newInstance(
            service, WorkflowClientOptions.newBuilder().setNamespace(namespace).build());
    WorkerFactory factory = WorkerFactory.newInstance(client);
    Worker worker = factory.newWorker(taskQueue);
    worker.registerWorkflowImplementationTypes(
        Baseline.StepsImpl.class, Baseline.LocalStepsImpl.class);
    worker.registerActivitiesImplementations(new Baseline.ActivitiesImpl(new ProbeClock()));
    factory.start();
    PrintWriter out = spec.commandLine().getOut();
    out.println(READY + " on " + taskQueue);
    out.flush();
    while (System.in.read() != -1) {
      // The bench never writes; the end of input is its end.
    }
    factory.shutdownNow();
    service.shutdownNow();
    return ExitCodes.OK;
  }
}
