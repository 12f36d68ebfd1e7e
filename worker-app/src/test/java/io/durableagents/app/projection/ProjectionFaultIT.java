package io.durableagents.app.projection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.agent.Agent;
import io.durableagents.app.AgentWorker;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.cli.AgentsMain;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.HistoryEntry;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SendOptions;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.session.RunStatus;
import io.durableagents.store.AgentStores;
import io.durableagents.store.ProjectionTables;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.RunResult;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The projection under a database outage: ten sessions run a scripted multi-turn tool conversation
 * on the real Temporal dev server, on a worker whose store is a real PostgreSQL; in the middle of
 * them PostgreSQL is stopped for 20 seconds and started again on the same data directory and port.
 * Every session must finish, and for each one the live projection must equal a projection rebuilt
 * from the workflow history into a fresh database: same messages (seq, body), same checkpoint
 * entries, no duplicates, no gaps.
 */
class ProjectionFaultIT {
  private static final String TASK_QUEUE = "projection-fault";
  private static final String AGENT = "fault";
  private static final int SESSIONS = 10;
  private static final Duration OUTAGE = Duration.ofSeconds(20);
  private static final Duration FINISH_TIMEOUT = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Eight model turns, nine tool calls (single and parallel), then a final answer. */
  private static final String SCRIPT =
      """
      {"turns": [
        {"text": "Looking up.", "delayMs": 500, "usage": {"inputTokens": 10, "outputTokens": 2},
         "toolCalls": [{"name": "lookup", "arguments": {"key": "a"}}]},
        {"delayMs": 500, "toolCalls": [{"name": "add", "arguments": {"a": 1, "b": 2}},
                                       {"name": "lookup", "arguments": {"key": "b"}}]},
        {"delayMs": 500, "toolCalls": [{"name": "lookup", "arguments": {"key": "c"}}]},
        {"delayMs": 500, "toolCalls": [{"name": "add", "arguments": {"a": 3, "b": 4}},
                                       {"name": "add", "arguments": {"a": 5, "b": 6}}]},
        {"delayMs": 500, "toolCalls": [{"name": "lookup", "arguments": {"key": "d"}}]},
        {"delayMs": 500, "toolCalls": [{"name": "add", "arguments": {"a": 7, "b": 8}}]},
        {"delayMs": 500, "toolCalls": [{"name": "lookup", "arguments": {"key": "e"}}]},
        {"text": "done", "delayMs": 200}
      ]}
      """;

  private static final int MODEL_TURNS = 8;
  private static final int TOOL_CALLS = 9;

  @TempDir Path dir;

  @Test
  void sessionsWaitOutAPostgresOutage_andTheProjectionEqualsARebuildFromHistory() throws Exception {
    long started = System.nanoTime();
    try (TestPostgres postgres =
            TestPostgres.start(dir.resolve("pgdata"), dir.resolve("postgres.log"));
        TemporalDevServer server = RealTemporal.start(dir)) {
      String liveUrl = postgres.createDatabase("live");
      String rebuiltUrl = postgres.createDatabase("rebuilt");
      String cliRebuiltUrl = postgres.createDatabase("rebuilt_by_cli");

      List<String> ids = new ArrayList<>();
      for (int i = 0; i < SESSIONS; i++) {
        ids.add("fault-" + i);
      }
      Map<String, RunResult> results = new LinkedHashMap<>();
      WorkflowClient client;
      WorkflowServiceStubs service = AgentWorker.connect(server.address());
      try (CheckpointStore store = CheckpointStore.of(AgentStores.open(liveUrl));
          ProjectionReader reader = ProjectionReader.open(liveUrl)) {
        client = WorkflowClient.newInstance(service);
        WorkerFactory factory = startWorker(client, store);
        AgentClient agents =
            AgentClient.newInstance(
                client,
                AgentClientOptions.newBuilder()
                    .setTaskQueue(TASK_QUEUE)
                    .setProjection(reader)
                    .build());
        ExecutorService pool = Executors.newFixedThreadPool(SESSIONS);
        try {
          Map<String, Future<RunResult>> runs = new LinkedHashMap<>();
          for (String id : ids) {
            runs.put(
                id,
                pool.submit(
                    () ->
                        agents.send(
                            id,
                            "run the errands",
                            SendOptions.newBuilder().setAgent(AGENT).build())));
          }

          // Every session has saved a checkpoint and none has finished: now the database goes.
          awaitEverySessionSaved(store, ids);
          int stepsBefore =
              ids.stream().mapToInt(id -> store.session(id).orElseThrow().lastStep()).sum();
          postgres.stop();
          long stoppedAt = System.nanoTime();
          Thread.sleep(OUTAGE.toMillis());
          postgres.startServer();
          System.out.printf(
              "PostgreSQL stopped for %.1f s with the sessions at %d checkpoint steps in total%n",
              (System.nanoTime() - stoppedAt) / 1e9, stepsBefore);

          for (Map.Entry<String, Future<RunResult>> run : runs.entrySet()) {
            results.put(
                run.getKey(), run.getValue().get(FINISH_TIMEOUT.toSeconds(), TimeUnit.SECONDS));
          }
        } finally {
          pool.shutdownNow();
        }

        // The client's history API reads the same projection.
        for (String id : ids) {
          List<HistoryEntry> history = agents.history(id, 0);
          assertThat(history).isNotEmpty();
          assertThat(history.get(0).checkpoint().messages()).isEqualTo(reader.messages(id, -1));
          assertThat(history)
              .extracting(HistoryEntry::step)
              .isSortedAccordingTo((a, b) -> Integer.compare(b, a));
        }
        factory.shutdown();
        factory.awaitTermination(10, TimeUnit.SECONDS);
      }

      int totalMessages = 0;
      int totalEntries = 0;
      int totalSaves = 0;
      int retriedActivities = 0;
      long shortestSpanMillis = Long.MAX_VALUE;
      try (CheckpointStore rebuilt = CheckpointStore.of(AgentStores.open(rebuiltUrl))) {
        for (String id : ids) {
          RunResult result = results.get(id);
          assertThat(result.status()).as("session %s", id).isEqualTo(RunStatus.FINISHED);
          assertThat(result.text()).isEqualTo("done");

          RebuildCheck.Checked checked =
              RebuildCheck.check(client, id, result, liveUrl, rebuilt, rebuiltUrl);
          assertThat(checked.assistantMessages())
              .as("model turns of %s", id)
              .isEqualTo(MODEL_TURNS);
          assertThat(checked.toolResults()).as("tool results of %s", id).isEqualTo(TOOL_CALLS);

          int retried = checked.retriedAttempts();
          long span = checked.saveSpanMillis();
          totalMessages += checked.live().messages().size();
          totalEntries += checked.live().checkpoints().size();
          totalSaves += checked.saves().size();
          retriedActivities += retried;
          shortestSpanMillis = Math.min(shortestSpanMillis, span);
          System.out.printf(
              "%s: %d messages, %d checkpoint entries, %d saves in history, %d activity attempts"
                  + " retried, first to last save %.1f s; rebuilt projection identical%n",
              id,
              checked.live().messages().size(),
              checked.live().checkpoints().size(),
              checked.saves().size(),
              retried,
              span / 1e3);
        }
      }
      System.out.printf(
          "%d sessions: %d messages, %d checkpoint entries, %d saves, %d activity attempts retried;"
              + " live and rebuilt projections identical; %.1f s in all%n",
          SESSIONS,
          totalMessages,
          totalEntries,
          totalSaves,
          retriedActivities,
          (System.nanoTime() - started) / 1e9);
      // Every session was in the middle of its run when the database went, and waited for it.
      assertThat(shortestSpanMillis).isGreaterThan(OUTAGE.toMillis() - 1_000);

      // The same through the CLI, on PostgreSQL: rebuild one session, read its history.
      String first = ids.get(0);
      Outcome rebuild =
          agents(
              "projection",
              "rebuild",
              first,
              "--temporal",
              server.address(),
              "--projection",
              cliRebuiltUrl);
      assertThat(rebuild.exitCode()).as(rebuild.err()).isZero();
      assertThat(rebuild.out()).contains("Rebuilt session " + first);
      assertThat(ProjectionTables.read(cliRebuiltUrl, first))
          .isEqualTo(ProjectionTables.read(liveUrl, first));
      Outcome history = agents("history", first, "--json", "--projection", liveUrl);
      assertThat(history.exitCode()).as(history.err()).isZero();
      JsonNode entries = JSON.readTree(history.out());
      assertThat(entries).hasSize(ProjectionTables.read(liveUrl, first).checkpoints().size());
      assertThat(entries.get(0).path("checkpoint").path("messages"))
          .hasSize(results.get(first).messageCount());
      assertThat(
              agents(
                      "projection",
                      "rebuild",
                      "no-such-session",
                      "--temporal",
                      server.address(),
                      "--projection",
                      cliRebuiltUrl)
                  .exitCode())
          .isEqualTo(4);
    } finally {
      System.out.printf("ProjectionFaultIT took %.1f s%n", (System.nanoTime() - started) / 1e9);
    }
  }

  private static WorkerFactory startWorker(WorkflowClient client, CheckpointStore store) {
    Agent agent =
        Agent.newBuilder(AGENT)
            .setModel("scripted")
            .setInstructions("Run the errands.")
            .setMaxSteps(20)
            // The default model retries (4 attempts): a turn that finds the store down spends
            // none of them, the workflow waits the outage out.
            .setTools(
                Tool.newBuilder("lookup")
                    .setDescription("Looks a key up.")
                    .setInputSchema(
                        "{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\"}},"
                            + "\"required\":[\"key\"]}")
                    .setHandler(
                        (args, ctx) ->
                            Map.of(
                                "key",
                                args.get("key").asText(),
                                "value",
                                Math.abs(args.get("key").asText().hashCode() % 1000)))
                    .build(),
                Tool.newBuilder("add")
                    .setDescription("Adds two integers.")
                    .setInputSchema(
                        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},"
                            + "\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}")
                    .setHandler(
                        (args, ctx) ->
                            Map.of("sum", args.get("a").asLong() + args.get("b").asLong()))
                    .build())
            .build();
    AgentsPlugin plugin =
        new AgentsPlugin(
            AgentsPluginOptions.newBuilder()
                .addAgent(agent)
                .setModelProvider(ScriptedModelProvider.fromJson(SCRIPT))
                .setStore(store)
                .build());
    WorkerFactory factory =
        WorkerFactory.newInstance(
            client, WorkerFactoryOptions.newBuilder().setPlugins(plugin).build());
    factory.newWorker(TASK_QUEUE);
    factory.start();
    return factory;
  }

  private static void awaitEverySessionSaved(CheckpointStore store, List<String> ids) {
    await("every session saved a checkpoint")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .pollDelay(Duration.ZERO)
        .until(() -> ids.stream().allMatch(id -> store.session(id).isPresent()));
    assertThat(ids)
        .allSatisfy(
            id ->
                assertThat(store.session(id).orElseThrow().status())
                    .isNotEqualTo(RunStatus.FINISHED));
  }

  record Outcome(int exitCode, String out, String err) {}

  private static Outcome agents(String... args) {
    CommandLine commandLine = AgentsMain.commandLine(Map.of());
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exitCode = commandLine.execute(args);
    return new Outcome(exitCode, out.toString(), err.toString());
  }
}
