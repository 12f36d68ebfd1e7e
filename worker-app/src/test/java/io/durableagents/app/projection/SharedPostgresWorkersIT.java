package io.durableagents.app.projection;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.app.AgentWorker;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.testing.AgentsProcesses;
import io.durableagents.app.testing.AgentsProcesses.Result;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SessionRow;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.session.RunStatus;
import io.durableagents.store.internal.ProjectionRebuilder;
import io.durableagents.workflow.RunResult;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scale-out on one PostgreSQL projection: two {@code agents worker} processes (separate JVMs) poll
 * one task queue of the real Temporal dev server and write one PostgreSQL projection; twenty
 * sessions run to completion and the projection holds every transcript. The CLI ({@code send},
 * {@code history}) reads the same projection as separate processes.
 */
class SharedPostgresWorkersIT {
  private static final String TASK_QUEUE = "shared";
  private static final int SESSIONS = 20;
  private static final Duration RUN_TIMEOUT = Duration.ofSeconds(60);
  private static final String FINAL_TEXT = "All set: Le Petit Zinc at 19:30, and a sunny evening.";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private AgentsProcesses processes;

  @BeforeEach
  void processes() {
    processes = new AgentsProcesses(dir);
  }

  @AfterEach
  void stopWorkers() throws InterruptedException {
    processes.close();
  }

  @Test
  void twoWorkerProcesses_shareOnePostgresProjection_andFinishEverySession() throws Exception {
    long started = System.nanoTime();
    Path script = dir.resolve("script.json");
    Files.writeString(
        script,
        """
        {"turns": [
          {"text": "Checking the weather.", "delayMs": 200,
           "toolCalls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
           "usage": {"inputTokens": 40, "outputTokens": 8}},
          {"text": "Finding a table.", "delayMs": 200,
           "toolCalls": [{"name": "find_restaurant",
                          "arguments": {"city": "Paris", "people": 2, "time": "19:30"}}],
           "usage": {"inputTokens": 80, "outputTokens": 9}},
          {"text": "%s", "usage": {"inputTokens": 120, "outputTokens": 14}}
        ]}
        """
            .formatted(FINAL_TEXT));

    try (TestPostgres postgres =
            TestPostgres.start(dir.resolve("pgdata"), dir.resolve("postgres.log"));
        TemporalDevServer server = RealTemporal.start(dir)) {
      String projection = postgres.createDatabase("agents");
      String temporal = server.address();
      // Both at once: they migrate the same fresh schema concurrently (Flyway locks it).
      List<CompletableFuture<String>> ready = new ArrayList<>();
      for (int worker = 1; worker <= 2; worker++) {
        ready.add(
            processes.start(
                "worker polling task queue '" + TASK_QUEUE + "' on " + temporal,
                "worker-" + worker,
                "worker",
                "--temporal",
                temporal,
                "--task-queue",
                TASK_QUEUE,
                "--projection",
                projection,
                "--model",
                "scripted:" + script));
      }
      for (int worker = 0; worker < ready.size(); worker++) {
        processes.await(ready.get(worker), "worker-" + (worker + 1));
      }
      System.out.printf("two workers ready after %.1f s%n", (System.nanoTime() - started) / 1e9);

      WorkflowServiceStubs service = AgentWorker.connect(temporal);
      try (ProjectionReader reader = ProjectionReader.open(projection)) {
        WorkflowClient client = WorkflowClient.newInstance(service);
        AgentClient agents =
            AgentClient.newInstance(
                client,
                AgentClientOptions.newBuilder()
                    .setTaskQueue(TASK_QUEUE)
                    .setProjection(reader)
                    .build());

        long sending = System.nanoTime();
        List<String> ids = new ArrayList<>();
        Map<String, RunResult> results = new TreeMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(SESSIONS);
        try {
          List<Future<RunResult>> runs = new ArrayList<>();
          for (int i = 0; i < SESSIONS; i++) {
            String id = "shared-" + i;
            ids.add(id);
            runs.add(pool.submit(() -> agents.send(id, "Plan my evening in Paris")));
          }
          for (int i = 0; i < SESSIONS; i++) {
            results.put(ids.get(i), runs.get(i).get(RUN_TIMEOUT.toSeconds(), TimeUnit.SECONDS));
          }
        } finally {
          pool.shutdownNow();
        }
        System.out.printf(
            "%d sessions finished in %.1f s%n", SESSIONS, (System.nanoTime() - sending) / 1e9);

        Map<String, Integer> activitiesByWorker = new TreeMap<>();
        for (String id : ids) {
          RunResult result = results.get(id);
          assertThat(result.status()).as("session %s", id).isEqualTo(RunStatus.FINISHED);
          assertThat(result.text()).isEqualTo(FINAL_TEXT);
          assertThat(result.toolCalls()).hasSize(2);

          List<Message> transcript = reader.messages(id, -1);
          assertThat(transcript).as("transcript of %s", id).hasSize(result.messageCount());
          assertThat(transcript).isEqualTo(result.messages());
          assertThat(transcript)
              .extracting(Message::role)
              .containsExactly(
                  Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT);
          assertThat(transcript.get(0).text()).isEqualTo("Plan my evening in Paris");
          assertThat(transcript.get(5).text()).isEqualTo(FINAL_TEXT);
          SessionRow row = reader.session(id).orElseThrow();
          assertThat(row.status()).isEqualTo(RunStatus.FINISHED);
          assertThat(row.messageCount()).isEqualTo(transcript.size());
          assertThat(reader.history(id, 0)).isNotEmpty();

          for (WorkflowExecutionHistory run : ProjectionRebuilder.fetchRuns(client, id)) {
            for (HistoryEvent event : run.getEvents()) {
              if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
                activitiesByWorker.merge(
                    event.getActivityTaskStartedEventAttributes().getIdentity(), 1, Integer::sum);
              }
            }
          }
        }
        System.out.println("activities per worker: " + activitiesByWorker);
        assertThat(activitiesByWorker).as("both workers took activities").hasSize(2);

        // The CLI on the same PostgreSQL projection, as separate processes.
        Result send =
            agents(
                "send",
                "shared-cli",
                "hello",
                "--json",
                "--temporal",
                temporal,
                "--task-queue",
                TASK_QUEUE,
                "--projection",
                projection);
        assertThat(send.exitCode()).as(send.err()).isZero();
        JsonNode sent = JSON.readTree(send.out());
        assertThat(sent.path("status").asText()).isEqualTo("finished");
        assertThat(sent.path("messages")).hasSize(6);
        Result history = agents("history", "shared-cli", "--json", "--projection", projection);
        assertThat(history.exitCode()).as(history.err()).isZero();
        JsonNode entries = JSON.readTree(history.out());
        assertThat(entries).isNotEmpty();
        assertThat(entries.get(0).path("checkpoint").path("messages")).hasSize(6);
        assertThat(entries.get(0).path("status").asText()).isEqualTo("finished");
      } finally {
        service.shutdownNow();
      }
    } finally {
      System.out.printf(
          "SharedPostgresWorkersIT took %.1f s%n", (System.nanoTime() - started) / 1e9);
    }
  }

  private Result agents(String... args) throws Exception {
    return processes.run(RUN_TIMEOUT, args);
  }
}
