package io.durableagents.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.app.testing.AgentsProcesses;
import io.durableagents.app.testing.AgentsProcesses.Result;
import io.durableagents.app.testing.LoopbackPorts;
import io.durableagents.app.testing.RealTemporal;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drives the {@code agents} CLI as a user would: {@code server} (the real Temporal dev server, its
 * state in {@code .agents/}) and {@code worker} as separate JVMs, then {@code send} and {@code
 * status} as one-shot processes, all in one working directory (the default SQLite projection is
 * relative to it).
 */
class CliEndToEndIT {
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(90);

  @TempDir Path workDir;

  private AgentsProcesses processes;
  private int port;
  private String temporal;

  @BeforeEach
  void startServerAndWorker() throws Exception {
    processes = new AgentsProcesses(workDir);
    port = LoopbackPorts.freeWithAFreeUiPort();
    temporal = "127.0.0.1:" + port;
    Path script = workDir.resolve("script.json");
    Files.writeString(
        script,
        """
        {"turns": [
          {"text": "Let me look outside.",
           "toolCalls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
           "usage": {"inputTokens": 11, "outputTokens": 7}},
          {"text": "It is fine in Paris.", "usage": {"inputTokens": 23, "outputTokens": 6}},
          {"text": "Still fine, as before.", "usage": {"inputTokens": 31, "outputTokens": 5}}
        ]}
        """);

    startServer();
    startAndAwait(
        "worker polling task queue 'agents' on " + temporal,
        "worker",
        "--temporal",
        temporal,
        "--model",
        "scripted:" + script);
  }

  @AfterEach
  void stopProcesses() throws InterruptedException {
    processes.close();
  }

  @Test
  void sendTwice_continuesOneConversation_andStatusAndErrorsKeepTheirExitCodes() throws Exception {
    Result first = agents("send", "chat-1", "hello", "--json", "--temporal", temporal);

    assertThat(first.exitCode()).as(first.err()).isZero();
    JsonNode run1 = first.json();
    assertThat(run1.path("sessionId").asText()).isEqualTo("chat-1");
    assertThat(run1.path("status").asText()).isEqualTo("finished");
    assertThat(run1.path("run").asInt()).isEqualTo(1);
    assertThat(run1.path("text").asText()).isEqualTo("It is fine in Paris.");
    assertThat(run1.path("toolCalls")).hasSize(1);
    assertThat(run1.path("toolCalls").get(0).path("name").asText()).isEqualTo("get_weather");
    assertThat(run1.path("toolCalls").get(0).path("result").path("city").asText())
        .isEqualTo("Paris");
    List<JsonNode> messages1 = conversation(run1);
    assertThat(messages1).isNotEmpty();
    assertThat(firstUserMessage(messages1).path("text").asText()).isEqualTo("hello");
    assertThat(messages1).anyMatch(m -> m.path("role").asText().equals("tool"));

    Result second = agents("send", "chat-1", "and again", "--json", "--temporal", temporal);

    assertThat(second.exitCode()).as(second.err()).isZero();
    JsonNode run2 = second.json();
    assertThat(run2.path("status").asText()).isEqualTo("finished");
    assertThat(run2.path("run").asInt()).isEqualTo(2);
    assertThat(run2.path("text").asText()).isEqualTo("Still fine, as before.");
    List<JsonNode> messages2 = conversation(run2);
    assertThat(messages2.size()).isGreaterThan(messages1.size());
    assertThat(messages2.subList(0, messages1.size())).isEqualTo(messages1);
    JsonNode next = messages2.get(messages1.size());
    assertThat(next.path("role").asText()).isEqualTo("user");
    assertThat(next.path("text").asText()).isEqualTo("and again");

    Result status = agents("status", "chat-1", "--json", "--temporal", temporal);

    assertThat(status.exitCode()).as(status.err()).isZero();
    assertThat(status.json().path("sessionId").asText()).isEqualTo("chat-1");
    assertThat(status.json().path("run").asInt()).isEqualTo(2);

    Result human = agents("send", "chat-1", "once more", "--temporal", temporal);

    assertThat(human.exitCode()).as(human.err()).isZero();
    assertThat(human.out()).contains("chat-1 · run 3 · finished").contains("(script ended)");

    Result missing = agents("status", "nope", "--temporal", temporal);

    assertThat(missing.exitCode()).isEqualTo(4);
    assertThat(missing.err()).contains("nope");
    assertThat(missing.out()).isEmpty();

    Result invalid = agents("send", "bad id!", "x", "--temporal", temporal);

    assertThat(invalid.exitCode()).isEqualTo(2);
    assertThat(invalid.err()).contains("Invalid session id");
  }

  @Test
  void gatedTool_pausesWithExit3_thenApproveResumesIt_andCancelIsAccepted() throws Exception {
    Path script = workDir.resolve("booking.json");
    Files.writeString(
        script,
        """
        {"turns": [
          {"text": "Booking.", "toolCalls": [
            {"name": "book_table", "arguments": {"restaurant": "Chez Marcel", "people": 3, "time": "20:00"}}]},
          {"text": "Booked."}
        ]}
        """);
    startAndAwait(
        "worker polling task queue 'bookings' on " + temporal,
        "worker",
        "--temporal",
        temporal,
        "--task-queue",
        "bookings",
        "--model",
        "scripted:" + script);

    Result paused =
        agents(
            "send",
            "book-1",
            "book it",
            "--json",
            "--temporal",
            temporal,
            "--task-queue",
            "bookings");
    assertThat(paused.exitCode()).as(paused.err()).isEqualTo(3);
    JsonNode approval = paused.json().path("approval");
    assertThat(approval.path("toolName").asText()).isEqualTo("book_table");
    String approvalId = approval.path("approvalId").asText();

    Result refused =
        agents("send", "book-1", "hurry up", "--temporal", temporal, "--task-queue", "bookings");
    assertThat(refused.exitCode()).isEqualTo(3);
    assertThat(refused.err()).contains(approvalId);

    Result unknown =
        agents(
            "approve", "book-1", "not-an-id", "--temporal", temporal, "--task-queue", "bookings");
    assertThat(unknown.exitCode()).isEqualTo(4);

    Result approved =
        agents(
            "approve",
            "book-1",
            approvalId,
            "--by",
            "ops",
            "--json",
            "--temporal",
            temporal,
            "--task-queue",
            "bookings");
    assertThat(approved.exitCode()).as(approved.err()).isZero();
    assertThat(approved.json().path("status").asText()).isEqualTo("finished");
    assertThat(
            approved.json().path("toolCalls").get(0).path("result").path("confirmation").asText())
        .startsWith("BK-");

    Result again =
        agents("approve", "book-1", approvalId, "--temporal", temporal, "--task-queue", "bookings");
    assertThat(again.exitCode()).isEqualTo(1);
    assertThat(again.err()).contains("already decided");

    Result cancel = agents("cancel", "book-1", "--temporal", temporal, "--task-queue", "bookings");
    assertThat(cancel.exitCode()).as(cancel.err()).isZero();
  }

  @Test
  void cancellingAModelTurnInFlight_settlesTheRunCancelled_andTheWorkerLogsNoWarning()
      throws Exception {
    Path script = workDir.resolve("slow.json");
    Files.writeString(
        script,
        "{\"turns\": [{\"text\": \"thinking\", \"delayMs\": 30000}, {\"text\": \"done\"}]}");
    startAndAwait(
        "worker polling task queue 'slow' on " + temporal,
        "worker",
        "--temporal",
        temporal,
        "--task-queue",
        "slow",
        "--model",
        "scripted:" + script);
    CompletableFuture<String> settled =
        processes.start(
            "slow-1 · run 1 · ",
            "send",
            "send",
            "slow-1",
            "hello",
            "--temporal",
            temporal,
            "--task-queue",
            "slow");
    awaitStatus("slow-1", "slow", "in-progress");

    Result cancel = agents("cancel", "slow-1", "--temporal", temporal, "--task-queue", "slow");

    assertThat(cancel.exitCode()).as(cancel.err()).isZero();
    assertThat(settled.get(60, TimeUnit.SECONDS)).contains("slow-1 · run 1 · cancelled");
    // An ordinary cancel is no failure: the worker logs no warning and no stack trace for it.
    assertThat(processes.backgroundOutput().lines().filter(line -> line.startsWith("[worker]")))
        .noneMatch(line -> line.contains("WARN") || line.contains("Exception"));
  }

  /** Polls {@code agents status} until the session's status is {@code wanted}. */
  private void awaitStatus(String session, String taskQueue, String wanted) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    String last = null;
    while (System.nanoTime() < deadline) {
      Result status =
          agents("status", session, "--json", "--temporal", temporal, "--task-queue", taskQueue);
      if (status.exitCode() == 0) {
        last = status.json().path("status").asText();
        if (wanted.equals(last)) {
          return;
        }
      }
      Thread.sleep(200);
    }
    throw new AssertionError(session + " never reached " + wanted + "; last status: " + last);
  }

  @Test
  void forkWithAChangedToolResult_rerunsAndDiffShowsTheDivergence() throws Exception {
    Result source = agents("send", "fork-src", "weather?", "--json", "--temporal", temporal);
    assertThat(source.exitCode()).as(source.err()).isZero();

    Result forked =
        agents(
            "fork",
            "fork-src",
            "--from-step",
            "2",
            "--tool-result",
            "call_0_0={\"forecast\":\"rain\"}",
            "--append-input",
            "and tomorrow?",
            "--json",
            "--temporal",
            temporal);
    assertThat(forked.exitCode()).as(forked.err()).isZero();
    String forkId = forked.json().path("sessionId").asText();
    assertThat(forkId).isEqualTo("fork-src.fork-1");

    Result rerun = agents("send", forkId, "", "--json", "--temporal", temporal);
    assertThat(rerun.exitCode()).as(rerun.err()).isZero();
    assertThat(rerun.json().path("status").asText()).isEqualTo("finished");
    List<JsonNode> messages = conversation(rerun.json());
    assertThat(messages.get(2).path("result").path("forecast").asText()).isEqualTo("rain");
    assertThat(messages.get(3).path("text").asText()).isEqualTo("and tomorrow?");

    Result diff = agents("diff", "fork-src", forkId, "--json", "--temporal", temporal);
    assertThat(diff.exitCode()).as(diff.err()).isZero();
    assertThat(diff.json().path("divergedAt").asInt()).isZero();
    Result readable = agents("diff", "fork-src", forkId, "--temporal", temporal);
    assertThat(readable.out()).contains("Diverged at step 0.");

    Result missing = agents("fork", "fork-src", "--from-step", "99", "--temporal", temporal);
    assertThat(missing.exitCode()).isEqualTo(4);
    assertThat(missing.err()).contains("checkpoint_not_found").contains("kept steps: [1, 2, 3]");

    Result taken =
        agents("fork", "fork-src", "--from-step", "2", "--as", forkId, "--temporal", temporal);
    assertThat(taken.exitCode()).isEqualTo(1);
    assertThat(taken.err()).contains("already exists");

    Result withState =
        agents(
            "fork",
            "fork-src",
            "--from-step",
            "2",
            "--business-state",
            "{\"vip\":true}",
            "--as",
            "fork-vip",
            "--temporal",
            temporal);
    assertThat(withState.exitCode()).as(withState.err()).isZero();
    assertThat(withState.out()).contains("patch: businessState");
    assertThat(agents("send", "fork-vip", "", "--temporal", temporal).exitCode()).isZero();
    Result status = agents("status", "fork-vip", "--temporal", temporal);
    assertThat(status.out()).contains("business state: {\"vip\":true}");

    Result notAnObject =
        agents(
            "fork",
            "fork-src",
            "--from-step",
            "2",
            "--business-state",
            "[1]",
            "--temporal",
            temporal);
    assertThat(notAnObject.exitCode()).isEqualTo(2);
    assertThat(notAnObject.err()).contains("--business-state needs a JSON object");
  }

  @Test
  void server_isTheRealDevServer_andARestartOnTheSameDirectoryKeepsTheSessions() throws Exception {
    Result sent = agents("send", "kept-1", "hello", "--json", "--temporal", temporal);
    assertThat(sent.exitCode()).as(sent.err()).isZero();
    // The Web UI's API lists the session's workflow.
    String query = URLEncoder.encode("WorkflowId=\"kept-1\"", StandardCharsets.UTF_8);
    HttpResponse<String> listed =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(
                            "http://127.0.0.1:"
                                + (port + 1000)
                                + "/api/v1/namespaces/default/workflows?query="
                                + query))
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(listed.statusCode()).as(listed.body()).isEqualTo(200);
    assertThat(listed.body()).contains("\"kept-1\"").contains("AgentSession");
    assertThat(workDir.resolve(".agents").resolve("temporal-" + port + ".db")).isNotEmptyFile();

    // SIGTERM, as from a service manager: the command stops the server process it started.
    Process server = processes.process("server");
    List<ProcessHandle> serverProcesses = server.descendants().toList();
    assertThat(serverProcesses).as("the dev server runs as a child process").isNotEmpty();
    server.destroy();
    assertThat(server.waitFor(30, TimeUnit.SECONDS)).as(processes.backgroundOutput()).isTrue();
    for (ProcessHandle child : serverProcesses) {
      assertThat(child.onExit().get(15, TimeUnit.SECONDS).isAlive())
          .as("process %d", child.pid())
          .isFalse();
    }
    Result down = agents("status", "kept-1", "--temporal", temporal);
    assertThat(down.exitCode()).isEqualTo(1);
    assertThat(down.err()).contains("Cannot reach Temporal");

    startServer();

    Result status = agents("status", "kept-1", "--json", "--temporal", temporal);
    assertThat(status.exitCode()).as(status.err()).isZero();
    assertThat(status.json().path("status").asText()).isEqualTo("finished");
    assertThat(status.json().path("run").asInt()).isEqualTo(1);
    Result next = agents("send", "kept-1", "and again", "--json", "--temporal", temporal);
    assertThat(next.exitCode()).as(next.err()).isZero();
    assertThat(next.json().path("run").asInt()).isEqualTo(2);
    assertThat(next.json().path("text").asText()).isEqualTo("Still fine, as before.");
  }

  private static List<JsonNode> conversation(JsonNode result) {
    assertThat(result.path("messages").isArray()).as("messages in %s", result).isTrue();
    List<JsonNode> messages = new ArrayList<>();
    result.path("messages").forEach(messages::add);
    return messages;
  }

  private static JsonNode firstUserMessage(List<JsonNode> messages) {
    return messages.stream()
        .filter(m -> m.path("role").asText().equals("user"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no user message in " + messages));
  }

  /** Runs {@code agents ARGS} to completion in the working directory. */
  private Result agents(String... args) throws Exception {
    return processes.run(COMMAND_TIMEOUT, args);
  }

  private void startAndAwait(String ready, String... args) throws Exception {
    processes.startAndAwait(ready, args);
  }

  /**
   * {@code agents server} on the real dev server (never the fallback: the CLI is given), its ready
   * line naming the Web UI on the default port, PORT + 1000.
   */
  private void startServer() throws Exception {
    startAndAwait(
        "Temporal server listening on "
            + temporal
            + " (Web UI http://127.0.0.1:"
            + (port + 1000)
            + ")",
        "server",
        "--port",
        String.valueOf(port),
        "--temporal-cli",
        RealTemporal.cli().toString());
  }
}
