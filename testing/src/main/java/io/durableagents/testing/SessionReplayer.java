package io.durableagents.testing;

import io.durableagents.testing.internal.HistoryFileText;
import io.durableagents.testing.internal.RecordedRun;
import io.durableagents.testing.internal.ReplayFailures;
import io.durableagents.workflow.internal.AgentSessionWorkflowImpl;
import io.durableagents.workflow.internal.ConcurrencyKeyWorkflowImpl;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.stream.Stream;

/**
 * Replays recorded session histories with the workflow code on the classpath, before that code is
 * deployed: a change that would make the running sessions fail on the new workers (a different
 * command order without {@code Workflow.getVersion}) shows here as a failed {@link
 * SessionReplayResult}, with the SDK's non-determinism error. It uses Temporal's {@link
 * WorkflowReplayer}; nothing runs against a server, activities are not called.
 *
 * <pre>{@code
 * @Test
 * void recordedSessions_replayWithThisBuild() throws IOException {
 *   SessionReplayer.newInstance()
 *       .replayFiles(Path.of("src/test/resources/histories"))
 *       .assertAllReplayed();
 * }
 * }</pre>
 *
 * <p>Histories come as {@link WorkflowExecutionHistory} objects, as JSON files (written by {@code
 * temporal workflow show --output json} or by {@link WorkflowExecutionHistory#toJson}), or from a
 * server with a visibility query. Each run is reported, also after one fails. Workflow inputs are
 * decoded with the {@code GlobalDataConverter}, as the SDK's replayer does. Unlike the SDK's
 * replayer, a workflow thread may run a minute without yielding before the replay fails as a
 * deadlock: the first replay of a cold JVM on a busy machine loads classes for seconds.
 */
public final class SessionReplayer {
  /** The visibility query of every session workflow: all runs, open and closed. */
  public static final String ALL_SESSIONS_QUERY =
      "WorkflowType = '" + AgentSessionWorkflow.WORKFLOW_TYPE + "'";

  /**
   * The largest history file read, in bytes (256 MiB). Temporal ends a workflow whose history
   * passes 50 MB, so the JSON of a real history stays far below; a larger file (or an endless one,
   * such as {@code /dev/zero}) is reported as a failure without being read whole.
   */
  public static final long MAX_HISTORY_FILE_BYTES = 256L << 20;

  private static final String REPLAY_TASK_QUEUE = "session-replay";

  /**
   * The replaying worker's deadlock detection timeout. The SDK's 1 s fails the first replay of a
   * cold JVM on a busy machine (a CI runner), while it loads the workflow's classes, as a
   * "deadlock" rather than for what it replays; a replay has no latency to keep.
   */
  private static final long DEADLOCK_DETECTION_MS = 60_000;

  private final List<Class<?>> workflowImplementations;

  private SessionReplayer(List<Class<?>> workflowImplementations) {
    this.workflowImplementations = List.copyOf(workflowImplementations);
  }

  /**
   * Replays against the library's workflows as the {@code AgentsPlugin} registers them: the session
   * workflow, and the lease workflow of a concurrency key.
   */
  public static SessionReplayer newInstance() {
    return new SessionReplayer(
        List.of(AgentSessionWorkflowImpl.class, ConcurrencyKeyWorkflowImpl.class));
  }

  /**
   * Replays against these workflow implementation classes instead, registered as a worker would:
   * for instance a test's deliberately changed copy of the session workflow.
   */
  public static SessionReplayer newInstance(Class<?> workflowImplementation, Class<?>... more) {
    List<Class<?>> classes = new ArrayList<>();
    classes.add(workflowImplementation);
    classes.addAll(Arrays.asList(more));
    return new SessionReplayer(classes);
  }

  /** Replays one history. */
  public SessionReplayResult replay(WorkflowExecutionHistory history) {
    return replay(List.of(history)).results().get(0);
  }

  /** Replays these histories, one result each. */
  public SessionReplayReport replay(Collection<WorkflowExecutionHistory> histories) {
    List<RecordedRun> runs = new ArrayList<>();
    for (WorkflowExecutionHistory history : histories) {
      runs.add(
          RecordedRun.fromEvents(
              history, history.getWorkflowExecution().getWorkflowId(), "history"));
    }
    return replayRuns(runs);
  }

  /** {@link #replayFiles(Collection)} of these paths. */
  public SessionReplayReport replayFiles(Path... paths) throws IOException {
    return replayFiles(Arrays.asList(paths));
  }

  /**
   * Replays history JSON files; a directory stands for the {@code *.json} files directly in it, in
   * name order. A file that cannot be read, is over {@link #MAX_HISTORY_FILE_BYTES}, is not UTF-8
   * or not a workflow history is reported as a failure of its own; the other files are replayed.
   *
   * @throws NoSuchFileException when a path does not exist (the message names it)
   * @throws IOException when a directory cannot be listed
   * @throws IllegalArgumentException when a directory holds no {@code *.json} file
   */
  public SessionReplayReport replayFiles(Collection<Path> paths) throws IOException {
    List<RecordedRun> runs = new ArrayList<>();
    for (Path file : expand(paths)) {
      runs.add(read(file));
    }
    return replayRuns(runs);
  }

  /**
   * Fetches and replays the histories of up to {@code limit} workflow runs that match {@code query}
   * (visibility syntax, for instance {@link #ALL_SESSIONS_QUERY} or {@code WorkflowType =
   * 'AgentSession' AND ExecutionStatus = 'Running'}), newest first as the server lists them. A run
   * whose history cannot be fetched is reported as a failure.
   */
  public SessionReplayReport replayFromServer(WorkflowClient client, String query, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
    List<WorkflowExecution> executions;
    try (Stream<WorkflowExecutionMetadata> listed = client.listExecutions(query)) {
      executions = listed.limit(limit).map(WorkflowExecutionMetadata::getExecution).toList();
    }
    List<RecordedRun> runs = new ArrayList<>();
    for (WorkflowExecution execution : executions) {
      String source = "server";
      try {
        runs.add(
            RecordedRun.of(
                client.fetchHistory(execution.getWorkflowId(), execution.getRunId()),
                execution.getWorkflowId(),
                execution.getRunId(),
                source));
      } catch (RuntimeException e) {
        runs.add(
            new RecordedRun(
                null,
                execution.getWorkflowId(),
                execution.getRunId(),
                source,
                "cannot fetch the history: " + ReplayFailures.describe(e)));
      }
    }
    return replayRuns(runs);
  }

  private SessionReplayReport replayRuns(List<RecordedRun> runs) {
    List<SessionReplayResult> results = new ArrayList<>();
    // One in-memory environment for all: the SDK's own batch replay does the same.
    try (TestWorkflowEnvironment environment = TestWorkflowEnvironment.newInstance()) {
      Worker worker =
          environment.newWorker(
              REPLAY_TASK_QUEUE,
              WorkerOptions.newBuilder()
                  .setDefaultDeadlockDetectionTimeout(DEADLOCK_DETECTION_MS)
                  .build());
      worker.registerWorkflowImplementationTypes(workflowImplementations.toArray(Class<?>[]::new));
      for (RecordedRun run : runs) {
        results.add(
            new SessionReplayResult(
                run.workflowId(), run.runId(), run.source(), failureOf(run, worker)));
      }
    }
    return new SessionReplayReport(results);
  }

  /** Null when the run replays. */
  private static String failureOf(RecordedRun run, Worker worker) {
    if (run.history() == null) {
      return run.unreadable();
    }
    try {
      WorkflowReplayer.replayWorkflowExecution(run.history(), worker);
      return null;
    } catch (Exception e) {
      // The SDK declares Exception: whatever stops the replay is this run's result.
      return ReplayFailures.describe(e);
    }
  }

  private static List<Path> expand(Collection<Path> paths) throws IOException {
    List<Path> files = new ArrayList<>();
    for (Path path : paths) {
      if (Files.isDirectory(path)) {
        List<Path> inDirectory;
        try (Stream<Path> listing = Files.list(path)) {
          inDirectory =
              listing
                  .filter(p -> p.getFileName().toString().endsWith(".json"))
                  .filter(Files::isRegularFile)
                  .sorted()
                  .toList();
        }
        if (inDirectory.isEmpty()) {
          throw new IllegalArgumentException("No *.json history file in directory " + path);
        }
        files.addAll(inDirectory);
      } else {
        files.add(path);
      }
    }
    return files;
  }

  private static RecordedRun read(Path file) throws NoSuchFileException {
    Path fileName = file.getFileName();
    String name = fileName == null ? file.toString() : fileName.toString();
    String source = file.toString();
    String json;
    try {
      json = HistoryFileText.read(file, MAX_HISTORY_FILE_BYTES);
    } catch (NoSuchFileException e) {
      throw e;
    } catch (HistoryFileText.Unreadable e) {
      return RecordedRun.unreadable(name, source, "cannot read " + source + ": " + e.getMessage());
    } catch (IOException e) {
      return RecordedRun.unreadable(
          name, source, "cannot read " + source + ": " + ReplayFailures.describe(e));
    }
    WorkflowExecutionHistory history;
    try {
      history = WorkflowExecutionHistory.fromJson(json);
    } catch (RuntimeException e) {
      return RecordedRun.unreadable(
          name, source, "not a workflow history: " + ReplayFailures.describe(e));
    }
    return RecordedRun.fromEvents(history, name, source);
  }
}
