package io.durableagents.testing;

import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;

/**
 * Replays a history as {@link WorkflowReplayer} does, with a deadlock detection timeout suited to a
 * cold JVM on a busy machine. The SDK's replayer gives its worker the SDK's 1 s: the first replay
 * of a JVM loads and compiles the workflow's classes, which on starved cores can keep a workflow
 * thread from yielding for longer, and the replay fails as a "deadlock" rather than for what it
 * replays. A replay has no latency to keep, so the bound only has to catch a workflow that really
 * blocks.
 */
public final class TestReplayer {
  /** The replaying worker's deadlock detection timeout. */
  public static final long DEADLOCK_DETECTION_MS = 60_000;

  private TestReplayer() {}

  /** Replays {@code history} with {@code workflowClasses} registered; throws where it fails. */
  public static void replay(WorkflowExecutionHistory history, Class<?>... workflowClasses)
      throws Exception {
    try (TestWorkflowEnvironment environment = TestWorkflowEnvironment.newInstance()) {
      Worker worker =
          environment.newWorker(
              "replay",
              WorkerOptions.newBuilder()
                  .setDefaultDeadlockDetectionTimeout(DEADLOCK_DETECTION_MS)
                  .build());
      worker.registerWorkflowImplementationTypes(workflowClasses);
      WorkflowReplayer.replayWorkflowExecution(history, worker);
    }
  }

  /** {@link #replay(WorkflowExecutionHistory, Class[])} of a history's JSON. */
  public static void replay(String json, Class<?>... workflowClasses) throws Exception {
    replay(WorkflowExecutionHistory.fromJson(json), workflowClasses);
  }
}
