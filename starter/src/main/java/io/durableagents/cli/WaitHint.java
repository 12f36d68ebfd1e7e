package io.durableagents.cli;

import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.client.WorkflowClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Timer;
import java.util.TimerTask;
import java.util.concurrent.TimeUnit;

/**
 * Prints one hint on stderr when a command waits long for a session. It asks Temporal whether a
 * worker polls the task queue first: with none, the worker is missing; with one, it is busy (a long
 * run, a run queued on its concurrency key, a tool or MCP server being retried). The command keeps
 * waiting.
 */
final class WaitHint {
  private final Timer timer = new Timer("agents-wait-hint", true);

  private WaitHint() {}

  /**
   * Schedules the hint {@code delay} from now, naming what the command waits for; {@code connected}
   * is asked for the task queue's pollers then.
   */
  static WaitHint after(
      Duration delay,
      String waitingFor,
      String session,
      PrintWriter err,
      ConnectionOptions connection,
      ConnectionOptions.Connection connected) {
    WaitHint hint = new WaitHint();
    hint.timer.schedule(
        new TimerTask() {
          @Override
          public void run() {
            Boolean polled = hasPollers(connected.workflowClient(), connection.taskQueue());
            err.println(
                text(waitingFor, session, connection.taskQueue(), connection.temporal(), polled));
            err.flush();
          }
        },
        delay.toMillis());
    return hint;
  }

  /** The hint; {@code hasPollers} null when Temporal could not tell. */
  static String text(
      String waitingFor, String session, String taskQueue, String temporal, Boolean hasPollers) {
    if (Boolean.TRUE.equals(hasPollers)) {
      return "Still waiting for "
          + waitingFor
          + "... a worker polls task queue '"
          + taskQueue
          + "' on "
          + temporal
          + ", so it is busy: a long run, a run queued on its concurrency key, or a tool or"
          + " MCP server being retried ('agents status "
          + session
          + "' shows where the session is).";
    }
    return "Still waiting for "
        + waitingFor
        + "... is a worker polling task queue '"
        + taskQueue
        + "' on "
        + temporal
        + "? (start one with './agents worker' or './agents dev')";
  }

  /** Whether Temporal saw a worker poll the task queue for workflow tasks; null when unknown. */
  private static Boolean hasPollers(WorkflowClient client, String taskQueue) {
    try {
      return client
              .getWorkflowServiceStubs()
              .blockingStub()
              .withDeadlineAfter(5, TimeUnit.SECONDS)
              .describeTaskQueue(
                  DescribeTaskQueueRequest.newBuilder()
                      .setNamespace(client.getOptions().getNamespace())
                      .setTaskQueue(TaskQueue.newBuilder().setName(taskQueue))
                      .setTaskQueueType(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW)
                      .build())
              .getPollersCount()
          > 0;
    } catch (RuntimeException e) {
      return null; // the hint without the answer: the worker may be missing
    }
  }

  void cancel() {
    timer.cancel();
  }
}
