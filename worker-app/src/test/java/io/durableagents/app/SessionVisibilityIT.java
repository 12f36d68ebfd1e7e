package io.durableagents.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.app.testing.AgentsProcesses;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.DecisionOptions;
import io.durableagents.client.ForkResult;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SendOptions;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionSearchAttributes;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import io.temporal.common.SearchAttributes;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sessions as Temporal's own tools see them, on the real dev server: the Temporal CLI finds a
 * paused session by its search attributes, {@code agents sessions} lists it without the projection,
 * and the UI's metadata (static summary, current details, activity summaries) is there. A server
 * without the attributes still runs sessions, and its worker says once how to register them.
 */
class SessionVisibilityIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * How long a read waits for visibility to catch up: the server promises no time, and on a busy
   * machine its visibility tasks lag; the bound only has to catch a record that never shows.
   */
  private static final Duration VISIBLE_WITHIN = Duration.ofMinutes(5);

  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(90);
  private static final String BOOKING_SCRIPT =
      """
      {"turns": [
        {"text": "Checking, then booking.", "toolCalls": [
          {"name": "get_weather", "arguments": {"city": "Paris"}},
          {"name": "book_table", "arguments": {"restaurant": "Chez Marcel", "people": 3, "time": "20:00"}}]},
        {"text": "Booked."},
        {"text": "Still booked."}
      ]}
      """;

  @TempDir Path dir;

  @Test
  void
      aPausedSession_isFoundByTheTemporalCli_andAgentsSessions_thenFinished_andItsForkNamesItsParent()
          throws Exception {
    Path script = dir.resolve("booking.json");
    Files.writeString(script, BOOKING_SCRIPT);
    String projection = "jdbc:sqlite:" + dir.resolve("projection.db");
    try (TemporalDevServer server = RealTemporal.start(dir);
        AgentWorker worker =
            AgentWorker.start(
                new WorkerConfig(
                    server.address(),
                    WorkerConfig.DEFAULT_NAMESPACE,
                    WorkerConfig.DEFAULT_TASK_QUEUE,
                    projection,
                    "scripted:" + script));
        ProjectionReader reader = ProjectionReader.open(projection);
        AgentsProcesses processes = new AgentsProcesses(dir)) {
      String address = server.address();
      AgentClient agents =
          AgentClient.newInstance(
              worker.client(), AgentClientOptions.newBuilder().setProjection(reader).build());

      RunResult paused =
          agents.send(
              "book-1", "book a table", SendOptions.newBuilder().setAgent("concierge").build());
      assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);

      JsonNode listed =
          eventually(
              () ->
                  temporalCli(
                      address,
                      "workflow",
                      "list",
                      "--query",
                      "AgentStatus=\"awaiting-approval\"",
                      "-o",
                      "json"),
              found -> workflowIds(found).contains("book-1"));
      assertThat(workflowIds(listed)).containsExactly("book-1");

      AgentsProcesses.Result waiting =
          processes.run(
              COMMAND_TIMEOUT,
              "sessions",
              "--status",
              "awaiting-approval",
              "--json",
              "--temporal",
              address);
      assertThat(waiting.exitCode()).as(waiting.err()).isZero();
      JsonNode row = waiting.json().get(0);
      assertThat(waiting.json()).hasSize(1);
      assertThat(row.path("sessionId").asText()).isEqualTo("book-1");
      assertThat(row.path("agent").asText()).isEqualTo("concierge");
      assertThat(row.path("status").asText()).isEqualTo("awaiting-approval");
      assertThat(row.path("pendingApprovals").asLong()).isEqualTo(1);
      assertThat(row.has("parentSession")).isFalse();
      assertThat(row.path("startTime").asText()).isNotBlank();

      WorkflowStub session = worker.client().newUntypedWorkflowStub("book-1");
      assertThat(session.describe().getStaticSummary()).isEqualTo("agent concierge");
      assertThat(currentDetails(session)).isEqualTo("run 1 · awaiting-approval · tool book_table");

      agents.approve(
          "book-1",
          paused.approval().approvalId(),
          DecisionOptions.newBuilder().setNote("ok").setDecidedBy("ops").build());
      RunResult finished = agents.awaitRun("book-1");
      assertThat(finished.status()).isEqualTo(RunStatus.FINISHED);

      SearchAttributes settled =
          eventually(
              () -> session.describe().getTypedSearchAttributes(),
              attributes ->
                  "finished".equals(attributes.get(SessionSearchAttributes.AGENT_STATUS)));
      assertThat(settled.get(SessionSearchAttributes.AGENT_NAME)).isEqualTo("concierge");
      assertThat(settled.get(SessionSearchAttributes.PENDING_APPROVALS)).isZero();
      assertThat(currentDetails(session)).isEqualTo("run 1 · finished");
      JsonNode finishedRows =
          eventually(
              () ->
                  processes
                      .run(
                          COMMAND_TIMEOUT,
                          "sessions",
                          "--status",
                          "finished",
                          "--json",
                          "--temporal",
                          address)
                      .json(),
              rows -> rows.size() == 1);
      assertThat(finishedRows.get(0).path("sessionId").asText()).isEqualTo("book-1");
      AgentsProcesses.Result table =
          processes.run(COMMAND_TIMEOUT, "sessions", "--agent", "concierge", "--temporal", address);
      assertThat(table.exitCode()).as(table.err()).isZero();
      assertThat(table.out()).contains("SESSION").contains("PARENT");
      assertThat(
              table
                  .out()
                  .lines()
                  .filter(line -> line.startsWith("book-1 "))
                  .findFirst()
                  .orElseThrow()
                  .split("\\s+"))
          .startsWith("book-1", "concierge", "finished", "0", "-");

      List<String> summaries = activitySummaries(worker, "book-1");
      assertThat(summaries).contains("model turn 1", "tool get_weather", "tool book_table");
      assertThat(summaries.stream().filter(s -> s.startsWith("model turn"))).hasSize(2);
      assertThat(String.join(" ", summaries))
          .doesNotContain("Chez Marcel")
          .doesNotContain("book a table");

      ForkResult fork = agents.fork("book-1", finished.checkpointStep(), null, null);
      String forkId = fork.sessionId();
      JsonNode forks =
          eventually(
              () ->
                  temporalCli(
                      address,
                      "workflow",
                      "list",
                      "--query",
                      "AgentParentSession=\"book-1\"",
                      "-o",
                      "json"),
              found -> workflowIds(found).contains(forkId));
      assertThat(workflowIds(forks)).containsExactly(forkId);
      assertThat(forks.get(0).path("searchAttributes").toString()).contains("AgentStatus");
      WorkflowStub forked = worker.client().newUntypedWorkflowStub(forkId);
      assertThat(forked.describe().getStaticSummary())
          .isEqualTo("agent concierge · fork of book-1 at step " + finished.checkpointStep());
      JsonNode forkRows =
          eventually(
              () ->
                  processes
                      .run(COMMAND_TIMEOUT, "sessions", "--json", "--temporal", address)
                      .json(),
              rows -> rows.size() == 2);
      JsonNode forkRow =
          forkRows.get(0).path("sessionId").asText().equals(forkId)
              ? forkRows.get(0)
              : forkRows.get(1);
      assertThat(forkRow.path("parentSession").asText()).isEqualTo("book-1");
      assertThat(forkRow.path("agent").asText()).isEqualTo("concierge");
      assertThat(forkRow.path("status").asText()).isEqualTo("finished");
    }
  }

  @Test
  void aServerWithoutTheAttributes_stillRunsSessions_andTheWorkerSaysOnceHowToRegisterThem()
      throws Exception {
    Path script = dir.resolve("booking.json");
    Files.writeString(script, BOOKING_SCRIPT);
    try (TemporalDevServer server =
            RealTemporal.start(
                TemporalDevServer.Options.newBuilder(RealTemporal.cli())
                    .registerSearchAttributes(false)
                    .databaseFile(dir.resolve("temporal.db"))
                    .logFile(dir.resolve("temporal-server.log")));
        AgentsProcesses processes = new AgentsProcesses(dir)) {
      String address = server.address();
      processes.startAndAwait(
          "worker polling task queue 'agents' on " + address,
          "worker",
          "--temporal",
          address,
          "--model",
          "scripted:" + script);

      WorkflowServiceStubs service = AgentWorker.connect(address);
      try {
        AgentClient agents = AgentClient.newInstance(WorkflowClient.newInstance(service));
        for (String sessionId : List.of("plain-1", "plain-2")) {
          RunResult paused = agents.send(sessionId, "book");
          assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
          agents.approve(
              sessionId,
              paused.approval().approvalId(),
              DecisionOptions.newBuilder().setDecidedBy("ops").build());
          RunResult finished = agents.awaitRun(sessionId);
          assertThat(finished.status()).isEqualTo(RunStatus.FINISHED);
        }
      } finally {
        service.shutdownNow();
      }

      String output = processes.backgroundOutput();
      assertThat(occurrences(output, "run without their search attributes"))
          .as(output)
          .isEqualTo(1);
      for (String command : SessionSearchAttributes.createCommands()) {
        assertThat(output).contains(command);
      }

      AgentsProcesses.Result all =
          processes.run(COMMAND_TIMEOUT, "sessions", "--json", "--temporal", address);
      assertThat(all.exitCode()).as(all.err()).isZero();
      List<String> ids = new ArrayList<>();
      all.json().forEach(row -> ids.add(row.path("sessionId").asText()));
      assertThat(ids).containsExactlyInAnyOrder("plain-1", "plain-2");
      all.json().forEach(row -> assertThat(row.has("status")).as(row.toString()).isFalse());

      AgentsProcesses.Result filtered =
          processes.run(COMMAND_TIMEOUT, "sessions", "--status", "finished", "--temporal", address);
      assertThat(filtered.exitCode()).isEqualTo(1);
      assertThat(filtered.err())
          .contains("cannot filter sessions by status or agent")
          .contains(SessionSearchAttributes.createCommands().get(0));

      AgentsProcesses.Result unknown =
          processes.run(COMMAND_TIMEOUT, "sessions", "--status", "paused", "--temporal", address);
      assertThat(unknown.exitCode()).isEqualTo(2);
      assertThat(unknown.err()).contains("Unknown status 'paused'");
    }
  }

  private static String currentDetails(WorkflowStub session) {
    return session
        .query("__temporal_workflow_metadata", WorkflowMetadata.class)
        .getCurrentDetails();
  }

  /** The summaries of the session's scheduled activities, in order. */
  private static List<String> activitySummaries(AgentWorker worker, String sessionId) {
    List<String> summaries = new ArrayList<>();
    for (HistoryEvent event : worker.client().fetchHistory(sessionId).getEvents()) {
      if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
          && event.getUserMetadata().hasSummary()) {
        summaries.add(
            DefaultDataConverter.STANDARD_INSTANCE.fromPayload(
                event.getUserMetadata().getSummary(), String.class, String.class));
      }
    }
    return summaries;
  }

  /** Runs {@code temporal ARGS --address ADDRESS} and parses what it prints as JSON. */
  private JsonNode temporalCli(String address, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(RealTemporal.cli().toString());
    command.addAll(List.of(args));
    command.addAll(List.of("--address", address));
    Path out = Files.createTempFile(dir, "temporal", ".out");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    if (!process.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(String.join(" ", command) + " did not finish");
    }
    String printed = Files.readString(out, StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(printed).isZero();
    return JSON.readTree(printed);
  }

  private static List<String> workflowIds(JsonNode executions) {
    List<String> ids = new ArrayList<>();
    executions.forEach(
        execution -> ids.add(execution.path("execution").path("workflowId").asText()));
    return ids;
  }

  private static int occurrences(String text, String part) {
    int count = 0;
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
      count++;
    }
    return count;
  }

  interface Read<T> {
    T get() throws Exception;
  }

  /** Reads until {@code done} holds: visibility is eventually consistent. */
  private static <T> T eventually(Read<T> read, Predicate<T> done) {
    return await("visible within " + VISIBLE_WITHIN)
        .atMost(VISIBLE_WITHIN)
        .pollInterval(Duration.ofMillis(200))
        .pollDelay(Duration.ZERO)
        .pollInSameThread() // a read may run a CLI process: one at a time, none left behind
        .until(read::get, done);
  }
}
