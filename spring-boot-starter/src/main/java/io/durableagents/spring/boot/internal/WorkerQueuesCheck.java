package io.durableagents.spring.boot.internal;

import io.temporal.worker.WorkerFactory;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Once every bean exists, checks that Temporal's starter created a worker for each task queue the
 * plugin registers on: without one, sessions would wait for a worker that never comes.
 */
public final class WorkerQueuesCheck implements SmartInitializingSingleton {
  private final ObjectProvider<WorkerFactory> factories;
  private final List<String> taskQueues;
  private final String property;

  /**
   * A check of {@code taskQueues}, which {@code property} sets.
   *
   * @param factories Temporal's worker factory, if its starter made one
   */
  public WorkerQueuesCheck(
      ObjectProvider<WorkerFactory> factories, List<String> taskQueues, String property) {
    this.factories = factories;
    this.taskQueues = List.copyOf(taskQueues);
    this.property = property;
  }

  @Override
  public void afterSingletonsInstantiated() {
    WorkerFactory factory = factories.getIfAvailable();
    for (String queue : taskQueues) {
      if (factory == null || factory.tryGetWorker(queue) == null) {
        throw InvalidProperty.of(
            property,
            String.join(",", taskQueues),
            "Temporal's starter has no worker for task queue '"
                + queue
                + "': add one (spring.temporal.workers[0].task-queue="
                + queue
                + "), or set durable-agents.worker.enabled=false in an application that only"
                + " starts and reads sessions");
      }
    }
  }
}
