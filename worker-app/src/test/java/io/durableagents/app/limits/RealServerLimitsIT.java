package io.durableagents.app.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.agent.Agent;
import io.durableagents.agent.Execution;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.SendOptions;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.session.RunStatus;
import io.durableagents.testing.SessionUpdates;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.ToolCallRecord;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.durableagents.workflow.internal.wire.StoredResults;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowServiceException;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptorBase;
import io.temporal.failure.ApplicationFailure;
import io.temporal.worker.WorkerOptions;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import io.temporal.workflow.unsafe.WorkflowUnsafe;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a real Temporal server enforces and the in-memory test server does not, shown on the CLI's
 * dev server with its default limits (payloads refused over 2 MB, gRPC messages over 4 MB,
 * continue-as-new suggested at 4 MB of history): an oversized tool result, a long run, and sends
 * that meet a continue-as-new.
 */
class RealServerLimitsIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The dev server's default {@code limit.blobSize.error}. */
  private static final int SERVER_PAYLOAD_LIMIT = 2 * 1024 * 1024;

  @TempDir static Path serverDir;
  @TempDir Path dir;

  private static TemporalDevServer server;

  @BeforeAll
  static void startServer() {
    server = RealTemporal.start(serverDir);
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  // ---- (a) a tool result over the server's payload limit -----------------------------------

  /** About 3 MB of JSON: 3,000 rows of 1 KB. */
  private static ObjectNode threeMegabytes() {
    ObjectNode export = JSON.createObjectNode();
    ArrayNode rows = export.putArray("rows");
    for (int i = 0; i < 3000; i++) {
      rows.addObject()
          .put("id", i)
          .put("name", "row-" + i)
          .put("body", String.valueOf((char) ('a' + i % 26)).repeat(1000));
    }
    return export;
  }

  @ParameterizedTest
  @EnumSource(Execution.class)
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aToolResultOverThePayloadLimit_isStoredByReference_andTheSessionGoesOn(Execution mode)
      throws Exception {
    ObjectNode export = threeMegabytes();
    int exportBytes = JSON.writeValueAsBytes(export).length;
    assertThat(exportBytes).isGreaterThan(SERVER_PAYLOAD_LIMIT + 900_000);
    List<ModelRequest> requests = new CopyOnWriteArrayList<>();
    ModelProvider script =
        ScriptedModelProvider.fromJson(
            "{\"turns\":[{\"toolCalls\":[{\"name\":\"export_rows\",\"arguments\":{}}]},"
                + "{\"text\":\"3000 rows exported\"},{\"text\":\"still 3000 rows\"}]}");
    ModelProvider recording =
        (request, stream) -> {
          requests.add(request);
          return script.generate(request, stream);
        };
    Agent agent =
        Agent.newBuilder("exporter")
            .setModelExecution(mode)
            .setTools(
                Tool.newBuilder("export_rows")
                    .setExecution(mode)
                    .setDescription("Exports every row.")
                    .setInputSchema("{\"type\":\"object\"}")
                    .setHandler((args, ctx) -> export)
                    .build())
            .build();
    String session = "export-" + mode.name().toLowerCase(Locale.ROOT);
    String queue = "limits-export-" + mode.name().toLowerCase(Locale.ROOT);
    try (LimitsWorker worker =
        LimitsWorker.create(server.address(), dir, queue, agent, recording).start()) {
      // The server refuses a payload of this size outright.
      assertThatThrownBy(
              () ->
                  worker
                      .client
                      .newUntypedWorkflowStub(
                          "NotRegistered",
                          WorkflowOptions.newBuilder()
                              .setTaskQueue("nobody")
                              .setWorkflowId(session + "-probe")
                              .build())
                      .start(export))
          .isInstanceOf(WorkflowServiceException.class)
          .hasRootCauseMessage("INVALID_ARGUMENT: Blob data size exceeds limit.");

      RunResult first =
          worker.agents.send(
              session, "export everything", SendOptions.newBuilder().setAgent("exporter").build());

      assertThat(first.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(first.text()).isEqualTo("3000 rows exported");
      JsonNode reference = first.toolCalls().get(0).result();
      assertThat(StoredResults.isReference(reference)).as("%s", reference).isTrue();
      assertThat(reference.path("storedResult").path("bytes").asInt()).isEqualTo(exportBytes);
      // The artifact holds the whole result, the projection the reference.
      assertThat(JSON.readTree(worker.artifacts.read(StoredResults.artifactId(reference))))
          .isEqualTo(export);
      Message stored = worker.store.readMessages(session, first.messageCount()).get(2);
      assertThat(stored.role()).isEqualTo(Role.TOOL);
      assertThat(stored.result()).isEqualTo(reference);
      // The model's next turn saw all of it.
      assertThat(requests).hasSize(2);
      assertThat(requests.get(1).messages().get(2).result()).isEqualTo(export);

      RunResult next = worker.agents.send(session, "how many rows?");

      assertThat(next.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(next.text()).isEqualTo("still 3000 rows");
      assertThat(requests).hasSize(3);
      assertThat(requests.get(2).messages().get(2).result()).isEqualTo(export);

      List<HistoryEvent> events = worker.client.fetchHistory(session).getEvents();
      int largest = events.stream().mapToInt(HistoryEvent::getSerializedSize).max().orElseThrow();
      long failedTasks =
          events.stream()
              .filter(
                  e ->
                      e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED
                          || e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED
                          || e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT)
              .count();
      System.out.printf(
          "payload limit (%s): a %,d-byte tool result stored by reference; %d history events, the largest %,d bytes%n",
          mode, exportBytes, events.size(), largest);
      assertThat(largest).isLessThan(16 * 1024);
      assertThat(failedTasks).isZero();
    }
  }

  // ---- (b) a long run continues as new before any limit ------------------------------------

  private static final int LONG_TURNS = 300;

  /** Characters of each tool result: a page of search hits. */
  private static final int PAGE_CHARS = 16_000;

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aRunOf300ToolTurns_continuesAsNewWhenTheServerSuggests_withFlatHistoryPerTurn() {
    StringBuilder script = new StringBuilder("{\"turns\":[");
    for (int i = 0; i < LONG_TURNS; i++) {
      script
          .append("{\"text\":\"t")
          .append(i)
          .append("\",\"toolCalls\":[{\"name\":\"search\",\"arguments\":{\"page\":")
          .append(i)
          .append("}}]},");
    }
    script.append("{\"text\":\"done\"}]}");
    String hits = "h".repeat(PAGE_CHARS);
    Agent agent =
        Agent.newBuilder("researcher")
            .setMaxSteps(LONG_TURNS + 1)
            .setTools(
                Tool.newBuilder("search")
                    .setDescription("One page of search hits.")
                    .setInputSchema("{\"type\":\"object\"}")
                    .setHandler(
                        (args, ctx) -> Map.of("page", args.get("page").asInt(), "hits", hits))
                    .build())
            .build();
    try (LimitsWorker worker =
        LimitsWorker.create(
                server.address(),
                dir,
                "limits-long",
                agent,
                ScriptedModelProvider.fromJson(script.toString()))
            .start()) {
      long t0 = System.nanoTime();
      RunResult result =
          worker.agents.send(
              "long-1", "research", SendOptions.newBuilder().setAgent("researcher").build());
      double seconds = (System.nanoTime() - t0) / 1e9;

      assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(result.text()).isEqualTo("done");
      assertThat(result.steps()).isEqualTo(LONG_TURNS + 1);
      // AgentClient restores the calls the run's result left out from the transcript.
      assertThat(result.toolCalls()).hasSize(LONG_TURNS);
      for (int i = 0; i < LONG_TURNS; i++) {
        ToolCallRecord call = result.toolCalls().get(i);
        assertThat(call.isOmitted()).isFalse();
        assertThat(call.result().get("page").asInt()).isEqualTo(i);
        assertThat(call.result().get("hits").asText()).hasSize(PAGE_CHARS);
      }
      assertThat(result.messages().size()).isEqualTo(1 + 2 * LONG_TURNS + 1);

      List<RunChain.Run> runs = RunChain.of(worker.service, worker.client, "long-1");
      System.out.printf(
          "continue-as-new: %d tool turns of %,d-character results in %.1f s, %d workflow runs%n",
          LONG_TURNS, PAGE_CHARS, seconds, runs.size());
      runs.forEach(run -> System.out.println("  " + run));
      assertThat(runs).hasSizeGreaterThan(1);
      assertThat(runs.stream().mapToInt(RunChain.Run::modelTurns).sum()).isEqualTo(LONG_TURNS + 1);
      RunChain.Run first = runs.get(0);
      for (int i = 0; i < runs.size(); i++) {
        RunChain.Run run = runs.get(i);
        // Far below the 50 MB (and 51,200 events) at which the server terminates a run.
        assertThat(run.bytes()).as("%s", run).isLessThan(6L * 1024 * 1024);
        // A run begins from the session's state, which does not grow with the session.
        assertThat(run.startEventBytes()).as("%s", run).isLessThan(400 * 1024);
        if (i < runs.size() - 1) {
          assertThat(suggestedContinueAsNew(worker.client, run.runId())).as("%s", run).isTrue();
        }
        if (run.modelTurns() >= 30) {
          assertThat(run.bytesPerTurn() / first.bytesPerTurn())
              .as("%s vs %s", run, first)
              .isBetween(0.67, 1.5);
        }
      }
    }
  }

  /** True when the server suggested continue-as-new to the run, and it did. */
  private static boolean suggestedContinueAsNew(WorkflowClient client, String runId) {
    List<HistoryEvent> events = client.fetchHistory("long-1", runId).getEvents();
    boolean suggested =
        events.stream()
            .filter(HistoryEvent::hasWorkflowTaskStartedEventAttributes)
            .anyMatch(e -> e.getWorkflowTaskStartedEventAttributes().getSuggestContinueAsNew());
    return suggested
        && events.get(events.size() - 1).getEventType()
            == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW;
  }

  // ---- (c) sends that meet a continue-as-new -----------------------------------------------

  /**
   * How long the workflow task that continues the session as new is held: sends arrive during it.
   */
  private static final Duration HOLD = Duration.ofSeconds(2);

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void sendsDuringTheContinueAsNewTask_areAnsweredByTheNextRun_withoutARetry() throws Exception {
    int turns = 20;
    StringBuilder script = new StringBuilder("{\"turns\":[");
    for (int i = 0; i < turns; i++) {
      script
          .append("{\"toolCalls\":[{\"name\":\"step\",\"arguments\":{\"n\":")
          .append(i)
          .append("}}]},");
    }
    // A message that arrives during the last turn gets a turn of its own.
    script.append("{\"text\":\"done\"},{\"text\":\"done\"}]}");
    CountDownLatch continuing = new CountDownLatch(1);
    AtomicInteger continuesAsNew = new AtomicInteger();
    AtomicLong holdEnded = new AtomicLong();
    Agent agent =
        Agent.newBuilder("stepper")
            .setMaxSteps(turns + 2)
            .setTools(
                Tool.newBuilder("step")
                    .setDescription("One step.")
                    .setInputSchema("{\"type\":\"object\"}")
                    .setHandler(
                        (args, ctx) -> {
                          // The next run's steps are slow enough to outlast the server's move of
                          // the sends (about 2 s left after the hand-over, even on a loaded
                          // machine), so the sends reach the run before it finishes.
                          Thread.sleep(holdEnded.get() == 0 ? 100 : 300);
                          return Map.of("n", args.get("n").asInt());
                        })
                    .build())
            .build();
    // The workflow thread sleeps in the held task; a generous deadlock timeout lets it.
    WorkerOptions options =
        WorkerOptions.newBuilder().setDefaultDeadlockDetectionTimeout(30_000).build();
    ExecutorService callers = Executors.newFixedThreadPool(3);
    try (LimitsWorker worker =
        LimitsWorker.create(
                server.address(),
                dir,
                "limits-handover",
                agent,
                ScriptedModelProvider.fromJson(script.toString()),
                options,
                new HoldContinueAsNew(continuing, continuesAsNew, holdEnded))
            .start()) {
      // One continue-as-new, after some 12 turns: the session's own event bound (150), not the
      // server's.
      CompletableFuture<RunResult> starter =
          CompletableFuture.supplyAsync(
              () ->
                  SessionUpdates.sendWithStart(
                      worker.client,
                      "limits-handover",
                      new SendRequest("go"),
                      new SessionStart("handover-1", "stepper", null, null, null, 150)),
              callers);
      assertThat(continuing.await(90, TimeUnit.SECONDS))
          .as("the session reached continue-as-new")
          .isTrue();

      // Plain updates on the workflow id, no retry of ours, sent while that workflow task runs.
      WorkflowStub session = worker.client.newUntypedWorkflowStub("handover-1");
      long sentAt = System.nanoTime();
      CompletableFuture<RunResult> attach =
          CompletableFuture.supplyAsync(
              () -> session.update("send", RunResult.class, new SendRequest("")), callers);
      CompletableFuture<RunResult> message =
          CompletableFuture.supplyAsync(
              () -> session.update("send", RunResult.class, new SendRequest("and this too")),
              callers);

      RunResult attached = attach.get(2, TimeUnit.MINUTES);
      RunResult sent = message.get(2, TimeUnit.MINUTES);
      RunResult started = starter.get(2, TimeUnit.MINUTES);
      assertThat(Duration.ofNanos(holdEnded.get() - sentAt))
          .as("the sends went out while the continue-as-new task was held")
          .isGreaterThan(HOLD.dividedBy(2));
      // The update the first run had accepted is answered by that run before it hands over.
      assertThat(started.isContinued()).isTrue();
      assertThat(started.status()).isEqualTo(RunStatus.IN_PROGRESS);
      // The two that reached the server during the hand-over: moved by the server to the next
      // run, which answers them with the run's result.
      for (RunResult result : List.of(attached, sent)) {
        assertThat(result.isContinued()).isFalse();
        assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
        assertThat(result.text()).isEqualTo("done");
        assertThat(result.steps()).isBetween(turns + 1, turns + 2);
      }
      assertThat(attached.steps()).isEqualTo(sent.steps());
      assertThat(continuesAsNew.get()).isEqualTo(1);
      List<RunChain.Run> runs = RunChain.of(worker.service, worker.client, "handover-1");
      assertThat(runs).hasSize(2);
      assertThat(acceptedUpdates(worker.client, "handover-1", runs.get(0).runId())).isEqualTo(1);
      assertThat(acceptedUpdates(worker.client, "handover-1", runs.get(1).runId())).isEqualTo(2);
      List<Message> transcript = worker.store.readMessages("handover-1", sent.messageCount());
      assertThat(transcript)
          .filteredOn(m -> m.role() == Role.USER)
          .extracting(Message::text)
          .containsExactly("go", "and this too");
      System.out.printf(
          "continue-as-new and sends: the accepted send answered 'continued' at step %d; the two sent"
              + " during the %d ms hand-over answered by run 2 with the run's result%n",
          started.steps(), HOLD.toMillis());
    } finally {
      callers.shutdownNow();
    }
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void anUpdateAcceptedByARunThatContinuesAsNew_failsOnTheRealServer_unlessTheRunAnswersIt() {
    try (LimitsWorker worker =
        LimitsWorker.create(
            server.address(),
            dir,
            "limits-probe",
            Agent.newBuilder("unused").build(),
            ScriptedModelProvider.fromJson("{\"turns\":[]}"))) {
      worker.worker.registerWorkflowImplementationTypes(HandoverProbeImpl.class);
      worker.start();
      HandoverProbe probe =
          worker.client.newWorkflowStub(
              HandoverProbe.class,
              WorkflowOptions.newBuilder()
                  .setWorkflowId("probe-1")
                  .setTaskQueue("limits-probe")
                  .build());
      WorkflowClient.start(probe::run, false);

      assertThatThrownBy(probe::await)
          .isInstanceOf(WorkflowUpdateException.class)
          .cause()
          .isInstanceOf(ApplicationFailure.class)
          .satisfies(
              cause ->
                  assertThat(((ApplicationFailure) cause).getType())
                      .isEqualTo("AcceptedUpdateCompletedWorkflow"));
      worker.client.newUntypedWorkflowStub("probe-1").terminate("probe done");
    }
  }

  /**
   * Counts the session workflow's continue-as-new calls, and holds the first one for {@link #HOLD}
   * (noting when the hold ended, in {@link System#nanoTime()}).
   */
  static final class HoldContinueAsNew extends WorkerInterceptorBase {
    private final CountDownLatch continuing;
    private final AtomicInteger calls;
    private final AtomicLong holdEnded;

    HoldContinueAsNew(CountDownLatch continuing, AtomicInteger calls, AtomicLong holdEnded) {
      this.continuing = continuing;
      this.calls = calls;
      this.holdEnded = holdEnded;
    }

    @Override
    public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
      return new WorkflowInboundCallsInterceptorBase(next) {
        @Override
        public void init(WorkflowOutboundCallsInterceptor outbound) {
          super.init(
              new WorkflowOutboundCallsInterceptorBase(outbound) {
                @Override
                public void continueAsNew(ContinueAsNewInput input) {
                  if (Workflow.getInfo().getWorkflowType().equals("AgentSession")
                      && !WorkflowUnsafe.isReplaying()
                      && calls.incrementAndGet() == 1) {
                    continuing.countDown();
                    blockThread(HOLD);
                    holdEnded.set(System.nanoTime());
                  }
                  super.continueAsNew(input);
                }
              });
        }
      };
    }

    /** Blocks the workflow thread itself (no durable timer): the workflow task stays open. */
    private static void blockThread(Duration duration) {
      try {
        Thread.sleep(duration.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Accepts one update, then continues as new without answering it. */
  @WorkflowInterface
  public interface HandoverProbe {
    @WorkflowMethod
    void run(boolean continued);

    @UpdateMethod
    String await();
  }

  public static class HandoverProbeImpl implements HandoverProbe {
    private boolean accepted;

    @Override
    public void run(boolean continued) {
      Workflow.await(() -> accepted || continued);
      if (continued) {
        Workflow.await(() -> false);
      }
      Workflow.continueAsNew(true);
    }

    @Override
    public String await() {
      accepted = true;
      Workflow.await(() -> false);
      return "never";
    }
  }

  private static long acceptedUpdates(WorkflowClient client, String workflowId, String runId) {
    return client.fetchHistory(workflowId, runId).getEvents().stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)
        .count();
  }
}
