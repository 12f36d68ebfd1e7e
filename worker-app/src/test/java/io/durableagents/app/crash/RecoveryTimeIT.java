package io.durableagents.app.crash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.agent.Execution;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.RunResult;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.TimeoutType;
import io.temporal.api.history.v1.ActivityTaskStartedEventAttributes;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowServiceException;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * How soon a session goes on after its only worker is SIGKILLed, with default settings everywhere:
 * the real Temporal server (the CLI's dev server), default worker options, the agent's default
 * timeouts and retries ({@link RecoveryTestWorker}). The worker is killed in the middle of a model
 * turn, in the middle of a tool call, or right after a tool finished; a replacement starts at once,
 * and the session must finish within {@link #BOUND} of the replacement's first poll (the promise of
 * docs/operations.md; the seconds from the kill are printed too). Each case runs with model turns
 * and tools as activities and as local activities, and prints the measured seconds.
 *
 * <p>In activity mode it also proves what bounds the time: before the kill, the server has a
 * heartbeat from the running model turn (the scripted model heartbeats while it waits out its
 * delay) or tool (the worker's ticker), and the attempt that ran again after the kill was started
 * because the killed one missed its heartbeat timeout, not its start-to-close timeout (5 min for a
 * model turn, 1 min for a tool by default). In local activity mode the workflow task of the killed
 * worker times out (10 s) and the replacement runs the local activity again.
 */
class RecoveryTimeIT {
  static final Duration BOUND = Duration.ofSeconds(30);
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration RUN_TIMEOUT = Duration.ofSeconds(90);
  private static final String MODEL_TURN = "agents.ModelTurn";
  private static final String EXECUTE_TOOL = "agents.ExecuteTool";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, String> MEASURED = new ConcurrentSkipListMap<>();

  /** Where the only worker is when it is killed. */
  enum KillPoint {
    MODEL_TURN,
    TOOL_CALL,
    AFTER_TOOL
  }

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  static Path dir;

  private static TemporalDevServer server;
  private static WorkflowServiceStubs service;
  private static WorkflowClient temporal;

  @BeforeAll
  static void startServer() {
    server = RealTemporal.start(dir);
    service =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(server.address()).build());
    temporal = WorkflowClient.newInstance(service);
  }

  @AfterAll
  static void stopServer() {
    System.out.println(
        "RecoveryTimeIT summary (seconds from SIGKILL to the finished run): " + MEASURED);
    if (service != null) {
      service.shutdownNow();
    }
    if (server != null) {
      server.close();
    }
  }

  static Stream<Arguments> cases() {
    return Stream.of(Execution.values())
        .flatMap(mode -> Stream.of(KillPoint.values()).map(point -> Arguments.of(mode, point)));
  }

  @ParameterizedTest(name = "{0} killed {1}")
  @MethodSource("cases")
  void aSessionWhoseOnlyWorkerIsKilled_finishesWithin30Seconds(Execution mode, KillPoint point)
      throws Exception {
    String name = (mode + "-" + point).toLowerCase(Locale.ROOT).replace('_', '-');
    String session = "recovery-" + name;
    Path caseDir = Files.createDirectories(dir.resolve(name));
    Path toolLedger = caseDir.resolve("tool-ledger.jsonl");
    Path modelLedger = caseDir.resolve("model-ledger.jsonl");
    List<String> workerArgs =
        List.of(
            server.address(),
            "recovery-" + name,
            caseDir.resolve("projection.db").toString(),
            toolLedger.toString(),
            modelLedger.toString(),
            mode.name());
    List<ChildJvm> workers = new ArrayList<>();
    try {
      ChildJvm first = startWorker(name + "-worker-1", caseDir, workerArgs, workers);
      AgentClient agents =
          AgentClient.newInstance(
              temporal, AgentClientOptions.newBuilder().setTaskQueue("recovery-" + name).build());
      CompletableFuture<Finished> run = CompletableFuture.supplyAsync(() -> drive(agents, session));

      awaitKillPoint(mode, point, session, toolLedger, modelLedger, run);
      long killedAt = System.nanoTime();
      first.kill();
      startWorker(name + "-worker-2", caseDir, workerArgs, workers);
      // The bound counts from when the replacement polls (docs/operations.md): its JVM start is
      // the machine's, seconds more on a busy one; the timeouts that bound the rest run meanwhile.
      long pollingAt = System.nanoTime();
      Finished finished = run.get(RUN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      double seconds = (finished.at() - killedAt) / 1e9;
      double secondsPolling = (finished.at() - pollingAt) / 1e9;

      List<HistoryEvent> history = temporal.fetchHistory(session).getEvents();
      String retry = retryAfterKill(history, point);
      MEASURED.put(name, String.format(Locale.ROOT, "%.1f", seconds));
      System.out.printf(
          Locale.ROOT,
          "RecoveryTimeIT: mode=%s killed=%s recovered in %.1f s, %.1f s after the replacement"
              + " polled (%s; client reattached %d times)%n",
          mode,
          point,
          seconds,
          secondsPolling,
          retry,
          finished.reattached());

      assertThat(finished.result().status()).isEqualTo(RunStatus.FINISHED);
      assertThat(finished.result().text()).isEqualTo("done");
      assertThat(secondsPolling)
          .as("seconds from the replacement's first poll to the finished run")
          .isLessThan((double) BOUND.toSeconds());
      assertNoWorkOfTheKilledWorkerWasLost(point, first.pid(), toolLedger, modelLedger);
      if (mode == Execution.ACTIVITY && point != KillPoint.AFTER_TOOL) {
        assertThat(retry)
            .as("why the killed activity ran again")
            .contains(TimeoutType.TIMEOUT_TYPE_HEARTBEAT.name());
      }
    } catch (AssertionError | Exception e) {
      StringBuilder logs = new StringBuilder();
      for (ChildJvm worker : workers) {
        logs.append("\n--- ")
            .append(worker.name())
            .append(" (pid ")
            .append(worker.pid())
            .append(") ---\n");
        logs.append(worker.tail());
      }
      logs.append("\n--- temporal server ---\n").append(ChildJvm.tail(server.log()));
      throw new AssertionError(
          name + " failed: " + e.getMessage() + "\nfiles kept in " + caseDir + logs, e);
    } finally {
      for (ChildJvm worker : workers) {
        worker.kill();
      }
    }
  }

  /**
   * The run's result and when it arrived; how often the client attached again after an RPC error.
   */
  record Finished(RunResult result, long at, int reattached) {}

  /** Sends "go" and waits for the run; a failed RPC (not a refusal) attaches to the run again. */
  private static Finished drive(AgentClient agents, String session) {
    int reattached = 0;
    String input = "go";
    while (true) {
      try {
        RunResult result = agents.send(session, input);
        return new Finished(result, System.nanoTime(), reattached);
      } catch (RuntimeException e) {
        if (!isTransient(e) || reattached >= 20) {
          throw e;
        }
        reattached++;
        input = "";
      }
    }
  }

  private static boolean isTransient(Throwable error) {
    boolean service = false;
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof WorkflowUpdateException) {
        return false;
      }
      service |= t instanceof WorkflowServiceException || t instanceof StatusRuntimeException;
    }
    return service;
  }

  private ChildJvm startWorker(String name, Path caseDir, List<String> args, List<ChildJvm> workers)
      throws Exception {
    ChildJvm worker =
        ChildJvm.start(
            name, caseDir, System.getProperty("java.class.path"), RecoveryTestWorker.class, args);
    workers.add(worker);
    return worker.awaitReady(CrashTestWorker.READY, READY_TIMEOUT);
  }

  /**
   * Waits until the worker is where {@code point} says. In activity mode, a kill in the middle of a
   * model turn or a tool call also waits until the server has a heartbeat of that activity: the
   * proof that it heartbeats while it works.
   */
  private void awaitKillPoint(
      Execution mode,
      KillPoint point,
      String session,
      Path toolLedger,
      Path modelLedger,
      CompletableFuture<Finished> run)
      throws Exception {
    switch (point) {
      case MODEL_TURN -> {
        awaitLine(modelLedger, l -> l.path("turn").asInt() == 0 && phase(l, "start"), run);
        if (mode == Execution.ACTIVITY) {
          awaitHeartbeat(
              session, MODEL_TURN, Duration.ofMillis(RecoveryTestWorker.MODEL_DELAY_MS), run);
        } else {
          Thread.sleep(RecoveryTestWorker.MODEL_DELAY_MS / 4);
        }
      }
      case TOOL_CALL -> {
        awaitLine(toolLedger, l -> phase(l, "start"), run);
        if (mode == Execution.ACTIVITY) {
          awaitHeartbeat(session, EXECUTE_TOOL, Duration.ofMillis(RecoveryTestWorker.TOOL_MS), run);
        } else {
          Thread.sleep(RecoveryTestWorker.TOOL_MS / 4);
        }
      }
      case AFTER_TOOL -> awaitLine(toolLedger, l -> phase(l, "end"), run);
    }
  }

  private static void awaitLine(
      Path ledger, Predicate<JsonNode> wanted, CompletableFuture<Finished> run) {
    await("the kill point in " + ledger.getFileName())
        .atMost(READY_TIMEOUT)
        .pollInterval(Duration.ofMillis(20))
        .pollDelay(Duration.ZERO)
        .pollInSameThread()
        .until(
            () -> {
              if (readLedger(ledger).stream().anyMatch(wanted)) {
                return true;
              }
              assertThat(run).as("the run, before the kill").isNotDone();
              return false;
            });
  }

  /**
   * Waits until the pending activity of {@code type} has a heartbeat; fails after {@code within}.
   */
  private void awaitHeartbeat(
      String session, String type, Duration within, CompletableFuture<Finished> run) {
    AtomicReference<Optional<PendingActivityInfo>> last = new AtomicReference<>(Optional.empty());
    try {
      await("the running %s heartbeats within %s".formatted(type, within))
          .atMost(within)
          .pollInterval(Duration.ofMillis(50))
          .pollDelay(Duration.ZERO)
          .pollInSameThread()
          .until(
              () -> {
                Optional<PendingActivityInfo> pending = pendingActivity(session, type);
                last.set(pending);
                if (pending.isPresent() && pending.get().hasLastHeartbeatTime()) {
                  return true;
                }
                assertThat(run).as("the run, before the kill").isNotDone();
                return false;
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          "the running %s heartbeats within %s (pending: %s)".formatted(type, within, last.get()),
          e);
    }
  }

  private Optional<PendingActivityInfo> pendingActivity(String session, String type) {
    return service
        .blockingStub()
        .describeWorkflowExecution(
            DescribeWorkflowExecutionRequest.newBuilder()
                .setNamespace(temporal.getOptions().getNamespace())
                .setExecution(WorkflowExecution.newBuilder().setWorkflowId(session))
                .build())
        .getPendingActivitiesList()
        .stream()
        .filter(activity -> activity.getActivityType().getName().equals(type))
        .findFirst();
  }

  /**
   * The killed worker did not finish the work it was killed in (so the kill hit it), and the
   * replacement did it once: one completion of the turn or the tool by the live worker at most, and
   * one in all when the kill came in the middle of it.
   */
  private static void assertNoWorkOfTheKilledWorkerWasLost(
      KillPoint point, long killedPid, Path toolLedger, Path modelLedger) throws IOException {
    List<JsonNode> ends =
        (point == KillPoint.MODEL_TURN ? readLedger(modelLedger) : readLedger(toolLedger))
            .stream()
                .filter(
                    l ->
                        phase(l, "end")
                            && (point != KillPoint.MODEL_TURN || l.path("turn").asInt() == 0))
                .toList();
    long byKilled = ends.stream().filter(l -> l.path("pid").asLong() == killedPid).count();
    long byReplacement = ends.size() - byKilled;
    if (point == KillPoint.AFTER_TOOL) {
      assertThat(byKilled).as("tool completions by the killed worker: " + ends).isEqualTo(1);
      assertThat(byReplacement)
          .as("tool completions by the replacement: " + ends)
          .isLessThanOrEqualTo(1);
    } else {
      assertThat(byKilled)
          .as("completions by the killed worker (killed in the middle): " + ends)
          .isZero();
      assertThat(byReplacement).as("completions by the replacement: " + ends).isEqualTo(1);
    }
  }

  /**
   * Which attempt of the work the kill hit completed, and why it was started: {@code attempt N
   * after TIMEOUT_TYPE_HEARTBEAT} for an activity retried after a missed heartbeat, {@code local}
   * for a local activity run again with its workflow task.
   */
  private static String retryAfterKill(List<HistoryEvent> history, KillPoint point) {
    String type = point == KillPoint.MODEL_TURN ? MODEL_TURN : EXECUTE_TOOL;
    Map<Long, String> types = new HashMap<>();
    int workflowTaskTimeouts = 0;
    String started = "local";
    for (HistoryEvent event : history) {
      switch (event.getEventType()) {
        case EVENT_TYPE_ACTIVITY_TASK_SCHEDULED ->
            types.put(
                event.getEventId(),
                event.getActivityTaskScheduledEventAttributes().getActivityType().getName());
        case EVENT_TYPE_ACTIVITY_TASK_STARTED -> {
          ActivityTaskStartedEventAttributes attributes =
              event.getActivityTaskStartedEventAttributes();
          if (type.equals(types.get(attributes.getScheduledEventId())) && started.equals("local")) {
            started =
                "attempt "
                    + attributes.getAttempt()
                    + (attributes.hasLastFailure()
                        ? " after "
                            + attributes.getLastFailure().getTimeoutFailureInfo().getTimeoutType()
                        : "");
          }
        }
        case EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT -> workflowTaskTimeouts++;
        default -> {}
      }
    }
    return started + ", workflow task timeouts " + workflowTaskTimeouts;
  }

  private static boolean phase(JsonNode line, String phase) {
    return phase.equals(line.path("phase").asText());
  }

  /** The complete lines of a ledger (a worker may be writing the next one). */
  private static List<JsonNode> readLedger(Path ledger) throws IOException {
    List<JsonNode> lines = new ArrayList<>();
    if (!Files.exists(ledger)) {
      return lines;
    }
    String text = Files.readString(ledger, StandardCharsets.UTF_8);
    for (String line : text.substring(0, text.lastIndexOf('\n') + 1).split("\n", -1)) {
      if (!line.isBlank()) {
        lines.add(JSON.readTree(line));
      }
    }
    return lines;
  }
}
