package io.durableagents.app.projection;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.agent.Agent;
import io.durableagents.app.AgentWorker;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.SendOptions;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.session.RunStatus;
import io.durableagents.store.AgentStores;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.tools.ApprovalPolicy;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.ToolCallRecord;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.history.v1.ActivityTaskStartedEventAttributes;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker that starts while PostgreSQL is down, with nothing cached, on the real Temporal dev
 * server. Before the outage a first worker leaves sessions paused on approvals and sessions with a
 * finished run; it stops, PostgreSQL stops, and a fresh worker (new plugin, new caches, a store
 * opened just before) takes over. During the outage, longer than the five attempts {@code
 * agents.ResolveRun} had, the sessions are approved, rejected or sent new input, and new sessions
 * start: every one of those needs the store (to record the run's definition, to read the definition
 * a tool call runs under, to save a rejection), so all of them wait. Once PostgreSQL is back every
 * run finishes normally, no tool result is an error, and every session's projection equals one
 * rebuilt from its workflow history.
 */
class WorkerStartDuringOutageIT {
  private static final String TASK_QUEUE = "outage-start";
  private static final String GATED = "gated";
  private static final String PLAIN = "plain";
  private static final int PER_GROUP = 3;

  /**
   * Longer than the five attempts ResolveRun used to have lasted: each fails within the store's
   * connection timeout of 5 s, with 1 + 2 + 4 + 8 s of backoff between them, 40 s at most.
   */
  private static final Duration OUTAGE = Duration.ofSeconds(45);

  private static final Duration FINISH_TIMEOUT = Duration.ofMinutes(3);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A call that waits for a decision, then the answer. */
  private static final String GATED_SCRIPT =
      """
      {"turns": [
        {"text": "Booking.", "toolCalls": [{"name": "book", "arguments": {"slot": "19:30"}}]},
        {"text": "settled"}
      ]}
      """;

  /** Two runs of a lookup and an answer. */
  private static final String PLAIN_SCRIPT =
      """
      {"turns": [
        {"toolCalls": [{"name": "lookup", "arguments": {"key": "a"}}]},
        {"text": "found"},
        {"toolCalls": [{"name": "lookup", "arguments": {"key": "b"}}]},
        {"text": "found again"}
      ]}
      """;

  @TempDir Path dir;

  @Test
  void aWorkerStartedDuringAnOutage_waitsForTheStore_andEveryRunFinishes() throws Exception {
    long started = System.nanoTime();
    try (TestPostgres postgres =
            TestPostgres.start(dir.resolve("pgdata"), dir.resolve("postgres.log"));
        TemporalDevServer server = RealTemporal.start(dir)) {
      String liveUrl = postgres.createDatabase("live");
      String rebuiltUrl = postgres.createDatabase("rebuilt");
      WorkflowServiceStubs service = AgentWorker.connect(server.address());
      WorkflowClient client = WorkflowClient.newInstance(service);
      AgentClient agents =
          AgentClient.newInstance(
              client, AgentClientOptions.newBuilder().setTaskQueue(TASK_QUEUE).build());

      // Before the outage, on a first worker: approvals pending, and finished runs.
      Map<String, RunResult> paused = new LinkedHashMap<>();
      List<String> approved = ids("approved");
      List<String> rejected = ids("rejected");
      List<String> again = ids("again");
      List<String> fresh = ids("fresh");
      try (CheckpointStore firstStore = CheckpointStore.of(AgentStores.open(liveUrl))) {
        WorkerFactory first = startWorker(client, firstStore);
        Map<String, CompletableFuture<RunResult>> before = new LinkedHashMap<>();
        // A run configuration gives the approved runs a definition of their own, which a fresh
        // worker reads from the store before it runs their tool.
        approved.forEach(id -> before.put(id, agents.sendAsync(id, "book", gated(true))));
        rejected.forEach(id -> before.put(id, agents.sendAsync(id, "book", gated(false))));
        again.forEach(id -> before.put(id, agents.sendAsync(id, "look", plain())));
        for (Map.Entry<String, CompletableFuture<RunResult>> send : before.entrySet()) {
          RunResult result = send.getValue().get(60, TimeUnit.SECONDS);
          RunStatus expected =
              again.contains(send.getKey()) ? RunStatus.FINISHED : RunStatus.AWAITING_APPROVAL;
          assertThat(result.status()).as("first run of %s", send.getKey()).isEqualTo(expected);
          paused.put(send.getKey(), result);
        }
        first.shutdown();
        first.awaitTermination(30, TimeUnit.SECONDS);
        assertThat(first.isTerminated()).as("the first worker stopped").isTrue();
      }

      Map<String, CompletableFuture<RunResult>> runs = new LinkedHashMap<>();
      long stoppedAt;
      long restartedAt;
      WorkerFactory second;
      // Opened while the database is up (opening migrates it); nothing else happens before the
      // outage.
      try (CheckpointStore store = CheckpointStore.of(AgentStores.open(liveUrl))) {
        postgres.stop();
        stoppedAt = System.nanoTime();
        second = startWorker(client, store);
        again.forEach(id -> runs.put(id, agents.sendAsync(id, "look again", plain())));
        fresh.forEach(id -> runs.put(id, agents.sendAsync(id, "look", plain())));
        for (String id : approved) {
          runs.put(
              id,
              agents
                  .approveAsync(id, paused.get(id).approval().approvalId())
                  .thenCompose(decided -> agents.awaitRunAsync(id)));
        }
        for (String id : rejected) {
          runs.put(
              id,
              agents
                  .rejectAsync(id, paused.get(id).approval().approvalId(), "not that one")
                  .thenCompose(decided -> agents.awaitRunAsync(id)));
        }

        Thread.sleep(Math.max(0, OUTAGE.toMillis() - (System.nanoTime() - stoppedAt) / 1_000_000));
        Map<String, RunResult> settledDuringOutage = new LinkedHashMap<>();
        runs.forEach(
            (id, run) -> {
              if (run.isDone()) {
                settledDuringOutage.put(id, run.getNow(null));
              }
            });
        assertThat(settledDuringOutage).as("runs settled while the store was down").isEmpty();
        postgres.startServer();
        restartedAt = System.nanoTime();
        System.out.printf(
            "PostgreSQL stopped for %.1f s; the worker started during the outage%n",
            (restartedAt - stoppedAt) / 1e9);

        Map<String, RunResult> results = new LinkedHashMap<>();
        double lastFinish = 0;
        for (Map.Entry<String, CompletableFuture<RunResult>> run : runs.entrySet()) {
          results.put(
              run.getKey(), run.getValue().get(FINISH_TIMEOUT.toSeconds(), TimeUnit.SECONDS));
          lastFinish = Math.max(lastFinish, (System.nanoTime() - restartedAt) / 1e9);
        }
        System.out.printf(
            "%d runs finished, the last %.1f s after PostgreSQL was back%n",
            results.size(), lastFinish);

        for (String id : approved) {
          assertFinished(results.get(id), "settled", "book", "{\"booked\":\"19:30\"}");
        }
        for (String id : rejected) {
          RunResult result = results.get(id);
          assertThat(result.status()).as("run of %s", id).isEqualTo(RunStatus.FINISHED);
          assertThat(result.text()).isEqualTo("settled");
          assertThat(result.toolCalls()).extracting(ToolCallRecord::name).containsExactly("book");
          assertThat(result.toolCalls().get(0).result().path("error").asText())
              .as("result of the rejected call of %s", id)
              .isEqualTo("rejected");
        }
        for (String id : again) {
          assertFinished(results.get(id), "found again", "lookup", "{\"key\":\"b\"}");
        }
        for (String id : fresh) {
          assertFinished(results.get(id), "found", "lookup", "{\"key\":\"a\"}");
        }

        second.shutdown();
        second.awaitTermination(10, TimeUnit.SECONDS);

        try (CheckpointStore rebuilt = CheckpointStore.of(AgentStores.open(rebuiltUrl))) {
          for (Map.Entry<String, RunResult> result : results.entrySet()) {
            String id = result.getKey();
            RebuildCheck.Checked checked =
                RebuildCheck.check(client, id, result.getValue(), liveUrl, rebuilt, rebuiltUrl);
            Waits waits = Waits.of(checked.runs());
            System.out.printf(
                "%s: %d messages, %d checkpoint entries; %d activity attempts retried, %d durable"
                    + " waits for the store, %d tool and %d model activities, store reads up to"
                    + " %d attempts, local saves up to %d attempts; rebuilt projection identical%n",
                id,
                checked.live().messages().size(),
                checked.live().checkpoints().size(),
                checked.retriedAttempts(),
                waits.storeTimers(),
                waits.toolActivities(),
                waits.modelActivities(),
                waits.lastResolveAttempt(),
                waits.localSaveAttempts());
            // What each group needed the store for during the outage, and waited for.
            if (approved.contains(id)) {
              assertThat(waits.toolActivities()).as("calls of the tool of %s", id).isGreaterThan(1);
            } else if (rejected.contains(id)) {
              // The rejection is saved by local activity before the next model turn.
              assertThat(waits.localSaveAttempts())
                  .as("attempts of a local save of %s", id)
                  .isGreaterThan(1);
            } else {
              assertThat(waits.lastResolveAttempt())
                  .as("attempts of the store reads (RestoreSession, ResolveRun) of %s", id)
                  .isGreaterThan(5);
            }
          }
        }
      }
    } finally {
      System.out.printf(
          "WorkerStartDuringOutageIT took %.1f s%n", (System.nanoTime() - started) / 1e9);
    }
  }

  /**
   * What a session's history shows of its waits: durable timers of a minute or less (the store
   * waits; an approval's timeout is longer), tool and model activities scheduled, the most attempts
   * its store reads before a run ({@code agents.RestoreSession}, an activity, and {@code
   * agents.ResolveRun}, a local one) took and the most attempts a checkpoint save by local activity
   * took (their markers record them).
   */
  record Waits(
      int storeTimers,
      int toolActivities,
      int modelActivities,
      int lastResolveAttempt,
      int localSaveAttempts) {
    static Waits of(List<WorkflowExecutionHistory> runs) throws IOException {
      int timers = 0;
      int tools = 0;
      int models = 0;
      int resolveAttempt = 0;
      int saveAttempts = 0;
      for (WorkflowExecutionHistory run : runs) {
        Map<Long, String> activityTypes = new HashMap<>();
        for (HistoryEvent event : run.getEvents()) {
          switch (event.getEventType()) {
            case EVENT_TYPE_TIMER_STARTED -> {
              if (event.getTimerStartedEventAttributes().getStartToFireTimeout().getSeconds()
                  <= 60) {
                timers++;
              }
            }
            case EVENT_TYPE_ACTIVITY_TASK_SCHEDULED -> {
              String type =
                  event.getActivityTaskScheduledEventAttributes().getActivityType().getName();
              tools += type.equals("agents.ExecuteTool") ? 1 : 0;
              models += type.equals("agents.ModelTurn") ? 1 : 0;
              activityTypes.put(event.getEventId(), type);
            }
            case EVENT_TYPE_ACTIVITY_TASK_STARTED -> {
              // A new workflow reads the store first (the RestoreSession activity, whose last
              // attempt its started event records), then resolves its run (local ResolveRun):
              // whichever met the outage retried through it.
              ActivityTaskStartedEventAttributes started =
                  event.getActivityTaskStartedEventAttributes();
              if ("agents.RestoreSession"
                  .equals(activityTypes.get(started.getScheduledEventId()))) {
                resolveAttempt = Math.max(resolveAttempt, started.getAttempt());
              }
            }
            case EVENT_TYPE_MARKER_RECORDED -> {
              Map<String, Payloads> details =
                  event.getMarkerRecordedEventAttributes().getDetailsMap();
              if (details.containsKey("type") && details.containsKey("meta")) {
                String type = JSON.readTree(data(details.get("type"))).asText();
                int attempt = JSON.readTree(data(details.get("meta"))).path("atpt").asInt();
                if (type.equals("agents.ResolveRun")) {
                  resolveAttempt = Math.max(resolveAttempt, attempt);
                } else if (type.startsWith("agents.SaveCheckpoint")) {
                  saveAttempts = Math.max(saveAttempts, attempt);
                }
              }
            }
            default -> {}
          }
        }
      }
      return new Waits(timers, tools, models, resolveAttempt, saveAttempts);
    }

    private static byte[] data(Payloads payloads) {
      return payloads.getPayloads(0).getData().toByteArray();
    }
  }

  private static List<String> ids(String group) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < PER_GROUP; i++) {
      ids.add(group + "-" + i);
    }
    return ids;
  }

  /** Finished with {@code text}, its one call answered by the tool itself, not an error. */
  private static void assertFinished(RunResult result, String text, String tool, String answer) {
    assertThat(result.status()).as("run of %s", result.sessionId()).isEqualTo(RunStatus.FINISHED);
    assertThat(result.text()).isEqualTo(text);
    assertThat(result.toolCalls()).extracting(ToolCallRecord::name).containsExactly(tool);
    assertThat(result.toolCalls().get(0).result())
        .as("result of the call of %s", result.sessionId())
        .hasToString(answer);
  }

  private static SendOptions gated(boolean withRunConfig) {
    SendOptions.Builder options = SendOptions.newBuilder().setAgent(GATED);
    if (withRunConfig) {
      ObjectNode config = JsonNodeFactory.instance.objectNode().put("desk", "north");
      options.setRunConfig(config);
    }
    return options.build();
  }

  private static SendOptions plain() {
    return SendOptions.newBuilder().setAgent(PLAIN).build();
  }

  /** A worker with its own plugin: its own registry, definitions and transcript caches. */
  private static WorkerFactory startWorker(WorkflowClient client, CheckpointStore store) {
    Agent gated =
        Agent.newBuilder(GATED)
            .setModel("scripted")
            .setInstructions("Book what is asked.")
            .setModelProvider(ScriptedModelProvider.fromJson(GATED_SCRIPT))
            .setTools(
                Tool.newBuilder("book")
                    .setDescription("Books a slot.")
                    .setInputSchema(
                        "{\"type\":\"object\",\"properties\":{\"slot\":{\"type\":\"string\"}},"
                            + "\"required\":[\"slot\"]}")
                    .setApprovalPolicy(ApprovalPolicy.ALWAYS)
                    .setHandler((args, ctx) -> Map.of("booked", args.get("slot").asText()))
                    .build())
            .build();
    Agent plain =
        Agent.newBuilder(PLAIN)
            .setModel("scripted")
            .setInstructions("Look things up.")
            .setModelProvider(ScriptedModelProvider.fromJson(PLAIN_SCRIPT))
            .setTools(
                Tool.newBuilder("lookup")
                    .setDescription("Looks a key up.")
                    .setInputSchema(
                        "{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\"}},"
                            + "\"required\":[\"key\"]}")
                    .setHandler((args, ctx) -> Map.of("key", args.get("key").asText()))
                    .build())
            .build();
    AgentsPlugin plugin =
        new AgentsPlugin(
            AgentsPluginOptions.newBuilder()
                .addAgent(gated)
                .addAgent(plain)
                .setStore(store)
                .build());
    WorkerFactory factory =
        WorkerFactory.newInstance(
            client, WorkerFactoryOptions.newBuilder().setPlugins(plugin).build());
    factory.newWorker(TASK_QUEUE);
    factory.start();
    return factory;
  }
}
