package io.durableagents.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.app.testing.AgentsProcesses;
import io.durableagents.app.testing.AgentsProcesses.Result;
import io.durableagents.app.testing.LoopbackPorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workers restarted under {@code agents server --embedded}, as a developer does between edits: once
 * cleanly (SIGTERM) and once killed ({@code kill -9}). The embedded test server never moves work
 * off a gone worker's sticky queue, so a session whose workflow was cached by the old worker used
 * to wait for that worker: {@code status} hung about a minute and failed with {@code
 * DEADLINE_EXCEEDED}, and the next send waited the same way. Each command here must answer, with
 * the session's own result, from the worker that replaced the old one.
 */
class EmbeddedServerWorkerRestartIT {
  /** Far beyond a command's time on a busy machine; a stranded query is answered never. */
  private static final Duration COMMAND = Duration.ofMinutes(3);

  @TempDir Path workDir;

  private AgentsProcesses processes;
  private String temporal;
  private Path script;

  @BeforeEach
  void startEmbeddedServer() throws Exception {
    processes = new AgentsProcesses(workDir);
    int port = LoopbackPorts.freeWithAFreeUiPort();
    temporal = "127.0.0.1:" + port;
    processes.startAndAwait(
        "Temporal server listening on " + temporal + " (embedded test server",
        "server",
        "--port",
        String.valueOf(port),
        "--embedded");
    script = workDir.resolve("script.json");
    Files.writeString(
        script,
        """
        {"turns": [
          {"text": "First answer."},
          {"text": "Second answer."},
          {"text": "Third answer."}
        ]}
        """);
  }

  @AfterEach
  void stopProcesses() {
    processes.close();
  }

  @Test
  void aRestartedWorkerAnswersStatusAndTheNextSend_afterAStopAndAfterAKill() throws Exception {
    startWorker("worker-1");
    Result first = agents("send", "restart-1", "hello", "--json");
    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(first.json().path("text").asText()).isEqualTo("First answer.");

    // SIGTERM: the worker shuts down cleanly, telling the server it stops polling.
    replaceWorker("worker-1", "worker-2", Process::destroy);
    assertStatusAnswers(1, "First answer.");
    assertNextSendAnswers(2, "Second answer.");

    // kill -9: nothing is told to the server.
    replaceWorker("worker-2", "worker-3", Process::destroyForcibly);
    assertStatusAnswers(2, "Second answer.");
    assertNextSendAnswers(3, "Third answer.");
  }

  private void replaceWorker(String old, String next, Consumer<Process> stop) throws Exception {
    Process process = processes.process(old);
    stop.accept(process);
    assertThat(process.waitFor(1, TimeUnit.MINUTES)).as(old + " stopped").isTrue();
    startWorker(next);
  }

  private void assertNextSendAnswers(int run, String text) throws Exception {
    Result sent = agents("send", "restart-1", "and again", "--json");
    assertThat(sent.exitCode()).as(sent.err()).isZero();
    assertThat(sent.json().path("run").asInt()).isEqualTo(run);
    assertThat(sent.json().path("text").asText()).isEqualTo(text);
  }

  private void startWorker(String name) throws Exception {
    processes.await(
        processes.start(
            "worker polling task queue 'agents' on " + temporal,
            name,
            "worker",
            "--temporal",
            temporal,
            "--model",
            "scripted:" + script),
        name);
  }

  /** {@code status} answers from the session's workflow, not only from the projection. */
  private void assertStatusAnswers(int run, String text) throws Exception {
    Result status = agents("status", "restart-1", "--json");
    assertThat(status.exitCode()).as(status.err()).isZero();
    JsonNode json = status.json();
    assertThat(json.path("status").asText()).isEqualTo("finished");
    assertThat(json.path("lastResult").path("run").asInt()).isEqualTo(run);
    assertThat(json.path("lastResult").path("text").asText()).isEqualTo(text);
  }

  private Result agents(String... args) throws Exception {
    String[] withServer = new String[args.length + 2];
    System.arraycopy(args, 0, withServer, 0, args.length);
    withServer[args.length] = "--temporal";
    withServer[args.length + 1] = temporal;
    return processes.run(COMMAND, withServer);
  }
}
