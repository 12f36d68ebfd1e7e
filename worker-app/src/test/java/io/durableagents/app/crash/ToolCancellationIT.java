package io.durableagents.app.crash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.util.Timestamps;
import io.durableagents.agent.Execution;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.RunResult;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A cancel reaches tool code, on the real dev server with worker processes: a 30 s tool stops
 * within 2 s of the cancel reaching its worker, also when it runs again after its first worker was
 * SIGKILLed; a tool that ignores the cancel finishes and its real result is recorded.
 *
 * <p>As a local activity the tool stops later: while a local activity runs, its workflow task stays
 * open and the server buffers the cancel signal until the SDK's workflow task heartbeat (at 80% of
 * the 10 s workflow task timeout) writes it to the history, where the tool's worker reads it.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ToolCancellationIT {
  /** How soon after the cancel a tool that honours interrupts must have stopped. */
  private static final Duration STOP_BOUND = Duration.ofSeconds(2);

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  private final List<ChildJvm> workers = new ArrayList<>();
  private TemporalDevServer server;
  private WorkflowServiceStubs service;
  private Path ledger;

  @AfterEach
  void stopEverything() throws InterruptedException {
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

  @ParameterizedTest(name = "{0}")
  @EnumSource(Execution.class)
  void aCancel_stopsA30sTool_soon_afterItsFirstWorkerWasKilled(Execution mode) throws Exception {
    AgentClient agents = start(mode);
    ChildJvm first = workers.get(0);
    String session = "cancel-" + mode.name().toLowerCase(Locale.ROOT);
    CompletableFuture<RunResult> run = agents.sendAsync(session, "long");
    awaitLine("long", "start", first.pid(), Duration.ofSeconds(60));

    first.kill();
    ChildJvm second = startWorker(mode, "worker-2");
    awaitLine("long", "start", second.pid(), Duration.ofSeconds(90));
    long cancelledAt = System.currentTimeMillis();
    agents.cancel(session);

    JsonNode stopped = awaitLine("long", "stopped", second.pid(), Duration.ofSeconds(30));
    long stoppedAt = stopped.get("at").asLong();
    System.out.printf(
        "%s: the tool stopped %d ms after the cancel (%s)%n",
        mode, stoppedAt - cancelledAt, cancelPath(session, cancelledAt));
    assertThat(Duration.ofMillis(stoppedAt - cancelReachedTheWorker(session, mode)))
        .as("time from the cancel reaching the tool's worker to the tool's stop")
        .isLessThanOrEqualTo(STOP_BOUND);
    assertThat(stopped.get("reason").asText()).isEqualTo("RUN_CANCELLED");
    RunResult result = run.get(60, TimeUnit.SECONDS);
    assertThat(result.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(result.toolCalls()).hasSize(1);
    assertThat(result.toolCalls().get(0).result())
        .isEqualTo(JSON.readTree("{\"error\": \"cancelled\"}"));
    assertThat(lines("long", "end")).as("the tool never finished").isEmpty();
  }

  @Test
  void aToolThatIgnoresTheCancel_finishes_andItsRealResultIsRecorded() throws Exception {
    AgentClient agents = start(Execution.ACTIVITY);
    CompletableFuture<RunResult> run = agents.sendAsync("stubborn", "stubborn");
    awaitLine("stubborn", "start", workers.get(0).pid(), Duration.ofSeconds(60));

    agents.cancel("stubborn");

    RunResult result = run.get(60, TimeUnit.SECONDS);
    assertThat(result.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(result.toolCalls()).hasSize(1);
    assertThat(result.toolCalls().get(0).result())
        .isEqualTo(JSON.readTree("{\"booked\": true, \"sawCancel\": true}"));
  }

  /**
   * When the cancel reached the worker running the tool, by the server's clock (the same machine's
   * as the tool's): the activity's cancel request recorded (a regular activity learns of it from
   * its next heartbeat), or the start of the first workflow task after the cancel signal was
   * written (the one that reads it, for a local activity). What comes before is the server's and
   * the worker's task latency, which a busy machine stretches and the product promises nothing of.
   */
  private long cancelReachedTheWorker(String session, Execution mode) {
    boolean signalled = false;
    for (HistoryEvent event :
        WorkflowClient.newInstance(service).fetchHistory(session).getHistory().getEventsList()) {
      signalled |= event.hasWorkflowExecutionSignaledEventAttributes();
      boolean reached =
          mode == Execution.ACTIVITY
              ? event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED
              : signalled && event.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED;
      if (reached) {
        return Timestamps.toMillis(event.getEventTime());
      }
    }
    throw new AssertionError("the cancel never reached a worker in the history of " + session);
  }

  /**
   * Where the time from the cancel to the stop went, from the session's history: the signal's
   * arrival, the workflow task that saw it (scheduled, started, completed) and the activity's
   * cancel request, each in ms after the client's cancel.
   */
  private String cancelPath(String session, long cancelledAt) {
    StringBuilder path = new StringBuilder();
    boolean signalled = false;
    for (HistoryEvent event :
        WorkflowClient.newInstance(service).fetchHistory(session).getHistory().getEventsList()) {
      long at = Timestamps.toMillis(event.getEventTime()) - cancelledAt;
      String type = event.getEventType().name().replace("EVENT_TYPE_", "");
      if (event.hasWorkflowExecutionSignaledEventAttributes()) {
        signalled = true;
      }
      if (signalled
          && (type.startsWith("WORKFLOW_TASK")
              || type.startsWith("WORKFLOW_EXECUTION_SIGNALED")
              || type.startsWith("ACTIVITY_TASK_CANCEL"))) {
        path.append(type.toLowerCase(Locale.ROOT)).append(" +").append(at).append(" ms; ");
      }
    }
    return path.toString();
  }

  private AgentClient start(Execution mode) throws IOException {
    ledger = dir.resolve("ledger.jsonl");
    server = RealTemporal.start(dir.resolve("server"));
    startWorker(mode, "worker-1");
    service =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(server.address()).build());
    return AgentClient.newInstance(
        WorkflowClient.newInstance(service),
        AgentClientOptions.newBuilder().setTaskQueue(CancelTestWorker.TASK_QUEUE).build());
  }

  private ChildJvm startWorker(Execution mode, String name) throws IOException {
    ChildJvm worker =
        ChildJvm.start(
            name,
            dir,
            System.getProperty("java.class.path"),
            CancelTestWorker.class,
            List.of(
                String.valueOf(server.port()),
                dir.resolve("projection.db").toString(),
                ledger.toString(),
                mode.name()));
    workers.add(worker);
    return worker.awaitReady(CancelTestWorker.READY, Duration.ofSeconds(60));
  }

  private JsonNode awaitLine(String tool, String phase, long pid, Duration within) {
    return await(tool + " " + phase + " in pid " + pid)
        .atMost(within)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () ->
                lines(tool, phase).stream()
                    .filter(line -> line.get("pid").asLong() == pid)
                    .findFirst(),
            Optional::isPresent)
        .orElseThrow();
  }

  private List<JsonNode> lines(String tool, String phase) throws IOException {
    List<JsonNode> found = new ArrayList<>();
    if (!Files.exists(ledger)) {
      return found;
    }
    for (String text : Files.readAllLines(ledger)) {
      if (text.isBlank()) {
        continue;
      }
      JsonNode line = JSON.readTree(text);
      if (tool.equals(line.get("tool").asText()) && phase.equals(line.get("phase").asText())) {
        found.add(line);
      }
    }
    return found;
  }
}
