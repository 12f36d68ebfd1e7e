package io.durableagents.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.app.AgentWorker;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.testing.AgentsProcesses;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.SendOptions;
import io.durableagents.conversation.FinishReason;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.RunResult;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A cancelled run resumed by the same message, against the real Temporal dev server and an {@code
 * agents worker} process: through the CLI ({@code agents send} after {@code agents cancel}, within
 * the resume window) and through {@link AgentClient} (the same idempotency key, with a resume
 * window of zero). The resumed run keeps its number and the message is in the transcript once.
 */
class ResumeAfterCancelIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  private static TemporalDevServer server;
  private static AgentsProcesses agents;
  private static String projection;
  private static Path noProfiles;

  record Outcome(int exitCode, String out, String err) {
    JsonNode json() throws java.io.IOException {
      return JSON.readTree(out);
    }
  }

  @BeforeAll
  static void startServerAndWorker() throws Exception {
    server = RealTemporal.start(Files.createDirectories(dir.resolve("server")));
    projection = "jdbc:sqlite:" + dir.resolve("projection.db");
    noProfiles = Files.writeString(dir.resolve("no-profiles.toml"), "");
    // The first turn is slow enough to cancel; a resumed run plays it again.
    Path script =
        Files.writeString(
            dir.resolve("script.json"),
            "{\"turns\": [{\"text\": \"Booked.\", \"delayMs\": 3000},"
                + " {\"text\": \"Anything else?\"}]}");
    agents = new AgentsProcesses(dir, Map.of("TEMPORAL_ADDRESS", server.address()));
    agents.startAndAwait(
        "worker polling task queue 'agents' on " + server.address(),
        "worker",
        "--model",
        "scripted:" + script,
        "--projection",
        projection);
  }

  @AfterAll
  static void stop() {
    if (agents != null) {
      agents.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private static Outcome agents(String... args) {
    CommandLine commandLine =
        AgentsMain.commandLine(
            Map.of(
                "TEMPORAL_ADDRESS",
                server.address(),
                "TEMPORAL_CONFIG_FILE",
                noProfiles.toString()));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    return new Outcome(commandLine.execute(args), out.toString(), err.toString());
  }

  /** The session's status as {@code agents status} shows it; empty while it has none. */
  private static String statusOf(String session) {
    Outcome status = agents("status", session, "--json");
    try {
      return status.exitCode() == 0 ? status.json().path("status").asText() : "";
    } catch (java.io.IOException e) {
      return "";
    }
  }

  private static List<String> userTexts(JsonNode result) {
    List<String> texts = new ArrayList<>();
    for (JsonNode message : result.path("messages")) {
      if ("user".equals(message.path("role").asText())) {
        texts.add(message.path("text").asText());
      }
    }
    return texts;
  }

  @Test
  void agentsSend_ofTheSameMessageAfterAgentsCancel_resumesTheRun() throws Exception {
    CompletableFuture<Outcome> first =
        CompletableFuture.supplyAsync(
            () -> agents("send", "book-1", "book a table", "--json", "--projection", projection));
    await("run 1 in progress")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> "in-progress".equals(statusOf("book-1")));
    Outcome cancel = agents("cancel", "book-1");
    assertThat(cancel.exitCode()).as(cancel.err()).isZero();
    Outcome cancelled = first.get(1, TimeUnit.MINUTES);
    assertThat(cancelled.json().path("status").asText()).as(cancelled.out()).isEqualTo("cancelled");
    assertThat(cancelled.json().path("run").asInt()).isEqualTo(1);

    Outcome resumed =
        agents("send", "book-1", "book a table", "--json", "--projection", projection);

    assertThat(resumed.exitCode()).as(resumed.err()).isZero();
    JsonNode result = resumed.json();
    assertThat(result.path("run").asInt()).as(resumed.out()).isEqualTo(1);
    assertThat(result.path("status").asText()).isEqualTo("finished");
    assertThat(result.path("text").asText()).isEqualTo("Booked.");
    assertThat(userTexts(result)).containsExactly("book a table");
    Outcome history = agents("history", "book-1", "--json", "--projection", projection);
    assertThat(history.exitCode()).as(history.err()).isZero();
    List<String> reasons = new ArrayList<>();
    for (JsonNode entry : history.json()) {
      assertThat(entry.path("checkpoint").path("run").asInt()).isEqualTo(1);
      reasons.add(entry.path("checkpoint").path("finishReason").asText());
    }
    assertThat(reasons)
        .as(history.out())
        .containsSubsequence(FinishReason.RESUMED, FinishReason.CANCELLED);

    // The run finished: the same message again is a new run, and a new message.
    Outcome next = agents("send", "book-1", "book a table", "--json", "--projection", projection);
    assertThat(next.exitCode()).as(next.err()).isZero();
    assertThat(next.json().path("run").asInt()).isEqualTo(2);
    assertThat(next.json().path("text").asText()).isEqualTo("Anything else?");
    assertThat(userTexts(next.json())).containsExactly("book a table", "book a table");
  }

  @Test
  void agentClient_withTheSameIdempotencyKey_resumesTheRun_evenWithAWindowOfZero()
      throws Exception {
    WorkflowServiceStubs service = AgentWorker.connect(server.address());
    try (AgentClient client = AgentClient.newInstance(WorkflowClient.newInstance(service))) {
      SendOptions keyed = SendOptions.newBuilder().setIdempotencyKey("seat-42").build();
      CompletableFuture<RunResult> first = client.sendAsync("seat-1", "hold my seat", keyed);
      await("run 1 in progress")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  client
                      .status("seat-1")
                      .map(status -> status.status() == RunStatus.IN_PROGRESS)
                      .orElse(false));
      client.cancel("seat-1");
      assertThat(first.get(1, TimeUnit.MINUTES).status()).isEqualTo(RunStatus.CANCELLED);

      RunResult resumed =
          client.send(
              "seat-1", "hold my seat", keyed.toBuilder().setResumeWindow(Duration.ZERO).build());

      assertThat(resumed.run()).isEqualTo(1);
      assertThat(resumed.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(resumed.text()).isEqualTo("Booked.");
      assertThat(resumed.messageCount()).isEqualTo(2); // the message once, and the answer
      assertThat(client.status("seat-1").orElseThrow().run()).isEqualTo(1);
    } finally {
      service.shutdownNow();
    }
  }
}
