package io.durableagents.workflow.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.AgentSessionWorkflowImpl;
import io.durableagents.workflow.internal.ConcurrencyKeyWorkflowImpl;
import io.durableagents.workflow.internal.activity.CheckpointActivities;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.durableagents.workflow.internal.wire.ConcurrencyKeyWorkflow;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.NonDeterministicException;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replays every committed golden history with the current workflow code: a change that alters the
 * command order of a released behaviour without {@code Workflow.getVersion} fails here. The files
 * and the scenario of each are listed in {@code histories/README.md}; from the 0.1.0 baseline on
 * they are only added, never edited.
 */
class GoldenHistoryReplayTest {
  /**
   * A deadlock detection timeout suited to a cold JVM on a busy machine: with the SDK's 1 s, or
   * even the plugin's 5 s, the first replay can fail as a "deadlock" while it loads classes, rather
   * than for what it replays. A replay has no latency to keep.
   */
  private static final long DEADLOCK_DETECTION_MS = 60_000;

  private static TestWorkflowEnvironment env;

  @BeforeAll
  static void startEnvironment() {
    env = TestWorkflowEnvironment.newInstance();
  }

  @AfterAll
  static void stopEnvironment() {
    env.close();
  }

  /** A worker that replays {@code workflowClass}. */
  private static Worker replayer(String taskQueue, Class<?> workflowClass) {
    Worker worker =
        env.newWorker(
            taskQueue,
            WorkerOptions.newBuilder()
                .setDefaultDeadlockDetectionTimeout(DEADLOCK_DETECTION_MS)
                .build());
    worker.registerWorkflowImplementationTypes(workflowClass);
    return worker;
  }

  static Stream<Path> goldenHistories() throws IOException, URISyntaxException {
    Path dir = Path.of(GoldenHistoryReplayTest.class.getResource("/histories").toURI());
    List<Path> files;
    try (Stream<Path> listing = Files.list(dir)) {
      files = listing.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    assertThat(files).as("golden histories in %s", dir).isNotEmpty();
    return files.stream();
  }

  @ParameterizedTest
  @MethodSource("goldenHistories")
  void goldenHistory_replaysWithTheCurrentWorkflow(Path history) throws Exception {
    WorkflowExecutionHistory recorded =
        WorkflowExecutionHistory.fromJson(Files.readString(history));
    WorkflowReplayer.replayWorkflowExecution(
        recorded, replayer("replay-" + history.getFileName(), implementationOf(recorded)));
  }

  /** The session workflow, or the lease of a concurrency key for a history of that type. */
  private static Class<?> implementationOf(WorkflowExecutionHistory history) {
    String type =
        history
            .getEvents()
            .get(0)
            .getWorkflowExecutionStartedEventAttributes()
            .getWorkflowType()
            .getName();
    return ConcurrencyKeyWorkflow.WORKFLOW_TYPE.equals(type)
        ? ConcurrencyKeyWorkflowImpl.class
        : AgentSessionWorkflowImpl.class;
  }

  @Test
  void canary_aWorkflowThatSchedulesDifferently_failsReplay() throws Exception {
    WorkflowExecutionHistory history =
        WorkflowExecutionHistory.fromJson(
            Files.readString(goldenHistories().findFirst().orElseThrow()));
    assertThatThrownBy(
            () ->
                WorkflowReplayer.replayWorkflowExecution(
                    history, replayer("replay-reordered", ReorderedWorkflow.class)))
        .hasStackTraceContaining(NonDeterministicException.class.getSimpleName());
  }

  /** Saves a checkpoint before doing anything else: a different first command. */
  public static class ReorderedWorkflow extends AgentSessionWorkflowImpl {
    @WorkflowInit
    public ReorderedWorkflow(SessionStart start) {
      super(start);
    }

    @Override
    public RunResult run(SessionStart start) {
      Workflow.newActivityStub(
              CheckpointActivities.class,
              ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(5)).build())
          .saveCheckpoint(
              new CheckpointSave(
                  null, null, null, 0, 0, null, null, 0, List.of(), null, null, 0, List.of(), null,
                  null, null));
      return super.run(start);
    }
  }
}
