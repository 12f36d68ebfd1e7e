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
import io.durableagents.client.DecisionOptions;
import io.durableagents.client.ProjectionReader;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new session's first workflow tasks lost with their worker on the real server, with model turns
 * and tools as local activities: the paths that made {@link CrashRecoveryIT} flaky, reproduced step
 * by step. The first task accepts the send and schedules the session's look-up in the store (an
 * activity), so both are in the history before any local activity runs; what a lost task after it
 * ran, it runs again, under the same activity ids and idempotency keys, and what it wrote to the
 * store is written again, not taken for a past life of the session.
 */
class LostFirstTaskIT {
  private static final String SESSION = "lost-first-task";
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  private final List<ChildJvm> workers = new ArrayList<>();
  private TemporalDevServer server;
  private WorkflowServiceStubs service;

  @AfterEach
  void stop() throws InterruptedException {
    for (ChildJvm worker : workers) {
      worker.process().destroyForcibly();
      worker.process().waitFor(10, TimeUnit.SECONDS);
    }
    if (service != null) {
      service.shutdownNow();
    }
    if (server != null) {
      server.close();
    }
  }

  /**
   * The worker is killed after the first tool's effect, and the server restarted, which loses what
   * it keeps only in memory: the send survives, accepted by the first task, and the send made again
   * is taken as a retry of it. Before the look-up was an activity, the first task ran the turn and
   * the tool too, a restart lost the send with it, and only the first-send wait's stable ids kept
   * the ids of the work that ran again.
   */
  @Test
  void firstTaskLostAfterAToolEffect_keepsItsSend_andRunsTheToolAgainUnderItsIds()
      throws Exception {
    Path toolLedger = dir.resolve("tool-ledger.jsonl");
    Path modelLedger = dir.resolve("model-ledger.jsonl");
    server = RealTemporal.start(dir);
    List<String> args = workerArgs(toolLedger, modelLedger);
    List<String> hangingArgs = new ArrayList<>(args);
    hangingArgs.add(CrashTestWorker.HANG_AFTER_EFFECT);
    ChildJvm first = startWorker("worker-1", hangingArgs);

    // The first send's client dies with the worker, so nothing sends it again before the test does.
    WorkflowServiceStubs firstClient = connect();
    CompletableFuture<Object> lostSend =
        CompletableFuture.supplyAsync(() -> firstSend(WorkflowClient.newInstance(firstClient)));

    // The first tool call's effect is in the ledger; its worker blocks before recording it.
    await("the first call's effect on " + first.name())
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              if (lostSend.isDone() && lostSend.join() instanceof RuntimeException e) {
                throw new IllegalStateException("the first send failed at once", e);
              }
              return !lines(toolLedger, "step_a", "end").isEmpty();
            });
    firstClient.shutdownNow();
    first.kill();
    server.close();
    server = RealTemporal.start(dir);
    service = connect();
    WorkflowClient temporal = WorkflowClient.newInstance(service);
    startWorker("worker-2", workerArgs(toolLedger, modelLedger));

    assertThat(events(temporal, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED))
        .as("the first send, accepted by the first task")
        .hasSize(1);
    AgentClient agents =
        AgentClient.newInstance(
            temporal,
            AgentClientOptions.newBuilder().setTaskQueue(CrashTestWorker.TASK_QUEUE).build());
    RunResult paused = agents.send(SESSION, "go");
    assertThat(paused.run()).as("the run of the send and its retry, %s", paused).isEqualTo(1);
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    assertThat(events(temporal, EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT))
        .as("the killed worker's workflow task timed out")
        .isNotEmpty();
    assertThat(firstSendTimers(temporal)).as("waits for a first send").isEmpty();
    agents.approve(
        SESSION,
        paused.approval().approvalId(),
        DecisionOptions.newBuilder().setDecidedBy("lost-first-task-it").build());
    RunResult done = agents.awaitRun(SESSION);
    assertThat(done.status()).as("the run").isEqualTo(RunStatus.FINISHED);
    assertThat(done.run()).isEqualTo(1);

    List<JsonNode> effects = lines(toolLedger, "step_a", "end");
    assertThat(effects)
        .as("the first call's effects: the killed worker's and its retry's")
        .extracting(line -> line.path("pid").asLong())
        .hasSize(3)
        .contains(first.pid());
    String killedCall =
        effects.stream()
            .filter(line -> line.path("pid").asLong() == first.pid())
            .findFirst()
            .orElseThrow()
            .path("toolCallId")
            .asText();
    List<JsonNode> firstCall =
        effects.stream()
            .filter(line -> line.path("toolCallId").asText().equals(killedCall))
            .toList();
    assertThat(firstCall)
        .as("the first turn's step_a, on the killed worker and again: %s", effects)
        .hasSize(2);
    assertThat(firstCall)
        .extracting(line -> line.path("activityId").asText())
        .as("activity ids of the call on both paths")
        .containsOnly(firstCall.get(0).path("activityId").asText());
    assertThat(firstCall)
        .extracting(line -> line.path("idempotencyKey").asText())
        .as("idempotency keys of the call on both paths")
        .containsOnly(firstCall.get(0).path("idempotencyKey").asText());

    assertGeneratedTwiceUnderOneActivityId(modelLedger);
  }

  /**
   * The run pauses on its gated call and writes its first entries to the store, and the worker is
   * killed before the task that wrote them completes, so the history records none of it. The task
   * that runs again must treat the entries as unrecorded work of this very session, not as a closed
   * session to go on from: once {@link CrashRecoveryIT} saw a session restore them (the look-up was
   * a local activity of the same task, and ran again), take the client's retried "go" as a second
   * run and leave two calls without results.
   */
  @Test
  void entriesOfALostFirstTask_areWrittenAgain_notRestoredAsAPastSession() throws Exception {
    Path database = dir.resolve("projection.db");
    Path modelLedger = dir.resolve("model-ledger.jsonl");
    server = RealTemporal.start(dir);
    List<String> args = workerArgs(dir.resolve("tool-ledger.jsonl"), modelLedger);
    List<String> hangingArgs = new ArrayList<>(args);
    hangingArgs.add(CrashTestWorker.HANG_AFTER_SAVE);
    ChildJvm first = startWorker("worker-1", hangingArgs);

    service = connect();
    WorkflowClient temporal = WorkflowClient.newInstance(service);
    ProjectionReader projection = ProjectionReader.open("jdbc:sqlite:" + database);
    AgentClient agents =
        AgentClient.newInstance(
            temporal,
            AgentClientOptions.newBuilder()
                .setTaskQueue(CrashTestWorker.TASK_QUEUE)
                .setProjection(projection)
                .build());
    CompletableFuture<RunResult> send = agents.sendAsync(SESSION, "go");

    // The run paused on its gated call and wrote its entries; the task that did is still open.
    first.awaitReady(CrashTestWorker.SAVED_AND_HANGING, Duration.ofSeconds(60));
    assertThat(projection.messages(SESSION, -1))
        .as("the lost task's entries in the store")
        .extracting(Message::role)
        .contains(Role.USER, Role.ASSISTANT);
    first.kill();
    startWorker("worker-2", args);

    RunResult paused = send.get(2, TimeUnit.MINUTES);
    assertThat(events(temporal, EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT))
        .as("the killed worker's workflow task timed out")
        .isNotEmpty();
    assertThat(paused.run()).as("the send's run, %s", paused).isEqualTo(1);
    assertThat(paused.status()).as("the send's run").isEqualTo(RunStatus.AWAITING_APPROVAL);
    agents.approve(
        SESSION,
        paused.approval().approvalId(),
        DecisionOptions.newBuilder().setDecidedBy("lost-first-task-it").build());
    RunResult done = agents.awaitRun(SESSION);
    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.run()).as("the run the one send started").isEqualTo(1);

    List<Message> transcript = projection.messages(SESSION, -1);
    assertThat(transcript).extracting(Message::role).filteredOn(Role.USER::equals).hasSize(1);
    assertThat(transcript)
        .extracting(Message::role)
        .filteredOn(Role.ASSISTANT::equals)
        .as("turns 0, 1 and 2: %s", transcript)
        .hasSize(3);
    for (int i = 0; i < transcript.size(); i++) {
      List<ToolCall> calls = transcript.get(i).toolCalls();
      for (int c = 0; c < calls.size(); c++) {
        Message next = transcript.get(i + 1 + c);
        assertThat(next.toolCallId())
            .as("the result after call %s: %s", calls.get(c).id(), transcript)
            .isEqualTo(calls.get(c).id());
      }
    }
    assertGeneratedTwiceUnderOneActivityId(modelLedger);
  }

  private List<String> workerArgs(Path toolLedger, Path modelLedger) {
    return List.of(
        String.valueOf(server.port()),
        dir.resolve("projection.db").toString(),
        toolLedger.toString(),
        modelLedger.toString(),
        Execution.LOCAL_ACTIVITY.name());
  }

  /**
   * The first send as {@code AgentClient} makes it, an update-with-start, without the client's
   * handling of its failure: the test sends again itself.
   */
  private static Object firstSend(WorkflowClient temporal) {
    AgentSessionWorkflow stub =
        temporal.newWorkflowStub(
            AgentSessionWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(SESSION)
                .setTaskQueue(CrashTestWorker.TASK_QUEUE)
                .setWorkflowIdConflictPolicy(
                    WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
                .build());
    try {
      return WorkflowClient.startUpdateWithStart(
          stub::send,
          new SendRequest("go"),
          UpdateOptions.newBuilder(RunResult.class)
              .setUpdateName("send")
              .setWaitForStage(WorkflowUpdateStage.ACCEPTED)
              .build(),
          new WithStartWorkflowOperation<>(stub::run, new SessionStart(SESSION, null, null)));
    } catch (RuntimeException e) {
      return e;
    }
  }

  private ChildJvm startWorker(String name, List<String> args) throws IOException {
    ChildJvm worker =
        ChildJvm.start(
            name, dir, System.getProperty("java.class.path"), CrashTestWorker.class, args);
    workers.add(worker);
    return worker.awaitReady(CrashTestWorker.READY, READY_TIMEOUT);
  }

  private WorkflowServiceStubs connect() {
    return WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setTarget(server.address()).build());
  }

  /** The timers of the wait for a first send (one minute); an approval's would be days. */
  private static List<HistoryEvent> firstSendTimers(WorkflowClient temporal) {
    return events(temporal, EventType.EVENT_TYPE_TIMER_STARTED).stream()
        .filter(
            event ->
                event.getTimerStartedEventAttributes().getStartToFireTimeout().getSeconds() == 60)
        .toList();
  }

  private static List<HistoryEvent> events(WorkflowClient temporal, EventType type) {
    return temporal.fetchHistory(SESSION).getEvents().stream()
        .filter(event -> event.getEventType() == type)
        .toList();
  }

  private static List<JsonNode> lines(Path ledger, String tool, String phase) throws IOException {
    return readLedger(ledger).stream()
        .filter(line -> tool.equals(line.path("tool").asText()))
        .filter(line -> phase.equals(line.path("phase").asText()))
        .toList();
  }

  /** The first model turn answered twice (on the killed worker and again), under one id. */
  private static void assertGeneratedTwiceUnderOneActivityId(Path modelLedger) throws IOException {
    List<JsonNode> firstTurn =
        readLedger(modelLedger).stream()
            .filter(
                line -> line.path("turn").asInt() == 0 && "end".equals(line.path("phase").asText()))
            .toList();
    assertThat(firstTurn)
        .as("the first model turn, generated on the killed worker and again")
        .hasSize(2)
        .extracting(line -> line.path("activityId").asText())
        .containsOnly(firstTurn.get(0).path("activityId").asText());
  }

  private static List<JsonNode> readLedger(Path ledger) throws IOException {
    List<JsonNode> lines = new ArrayList<>();
    if (Files.exists(ledger)) {
      for (String line : Files.readAllLines(ledger, StandardCharsets.UTF_8)) {
        lines.add(JSON.readTree(line));
      }
    }
    return lines;
  }
}
