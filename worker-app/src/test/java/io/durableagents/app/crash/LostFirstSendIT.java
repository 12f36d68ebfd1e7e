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
 * The path that made {@link CrashRecoveryIT} flaky, reproduced step by step on the real server: a
 * new session's first workflow task runs its local activities (the agent's resolution, the first
 * model turn, the first tool call, whose effect reaches the ledger) and its worker is SIGKILLed
 * before the task completes. The server keeps the send that came with the update-with-start only in
 * memory; here it restarts and loses it (under a storm of kills it aborts it instead), so the next
 * workflow task finds no input and starts the first-send timer, and only then does the client send
 * again. The model turn and the tool run again, as work in flight on a killed worker may, but each
 * under the same activity id, and the tool under the same idempotency key, as on the killed worker:
 * the path through the first-send timer takes no id that the first attempt gave out.
 */
class LostFirstSendIT {
  private static final String SESSION = "lost-first-send";
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

  @Test
  void firstSendLostWithItsWorkflowTask_resendRunsTheToolUnderOneActivityIdAndIdempotencyKey()
      throws Exception {
    Path toolLedger = dir.resolve("tool-ledger.jsonl");
    Path modelLedger = dir.resolve("model-ledger.jsonl");
    server = RealTemporal.start(dir);
    List<String> args =
        List.of(
            String.valueOf(server.port()),
            dir.resolve("projection.db").toString(),
            toolLedger.toString(),
            modelLedger.toString(),
            Execution.LOCAL_ACTIVITY.name());
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
    // The server keeps a send it admitted for the next attempt of a timed-out workflow task, but
    // only in its memory: a restart (or an update aborted while the task keeps failing) loses it.
    server.close();
    server = RealTemporal.start(dir);
    service = connect();
    WorkflowClient temporal = WorkflowClient.newInstance(service);
    List<String> restartedArgs = new ArrayList<>(args);
    restartedArgs.set(0, String.valueOf(server.port()));
    startWorker("worker-2", restartedArgs);

    await("the first-send timer after the lost workflow task")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> !firstSendTimers(temporal).isEmpty());
    assertThat(events(temporal, EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT))
        .as("the killed worker's workflow task timed out")
        .isNotEmpty();
    assertThat(events(temporal, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED))
        .as("the first send was lost with its workflow task")
        .isEmpty();

    AgentClient agents =
        AgentClient.newInstance(
            temporal,
            AgentClientOptions.newBuilder().setTaskQueue(CrashTestWorker.TASK_QUEUE).build());
    RunResult paused = agents.send(SESSION, "go");
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    agents.approve(
        SESSION,
        paused.approval().approvalId(),
        DecisionOptions.newBuilder().setDecidedBy("lost-first-send-it").build());
    RunResult done = agents.awaitRun(SESSION);
    assertThat(done.status()).as("the resent run").isEqualTo(RunStatus.FINISHED);

    List<JsonNode> effects = lines(toolLedger, "step_a", "end");
    assertThat(effects)
        .as("the first call's effects: the killed worker's and the resend's")
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
        .as("the first turn's step_a, on the killed worker and again for the resend: %s", effects)
        .hasSize(2);
    assertThat(firstCall)
        .extracting(line -> line.path("activityId").asText())
        .as("activity ids of the call on both paths")
        .containsOnly(firstCall.get(0).path("activityId").asText());
    assertThat(firstCall)
        .extracting(line -> line.path("idempotencyKey").asText())
        .as("idempotency keys of the call on both paths")
        .containsOnly(firstCall.get(0).path("idempotencyKey").asText());

    List<JsonNode> firstTurn =
        readLedger(modelLedger).stream()
            .filter(
                line -> line.path("turn").asInt() == 0 && "end".equals(line.path("phase").asText()))
            .toList();
    assertThat(firstTurn)
        .as("the first model turn, generated on the killed worker and again for the resend")
        .hasSize(2)
        .extracting(line -> line.path("activityId").asText())
        .containsOnly(firstTurn.get(0).path("activityId").asText());
  }

  /**
   * The first send as {@code AgentClient} makes it, an update-with-start, without the client's
   * handling of its failure: the test sends again itself, once the workflow waits for a send.
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
