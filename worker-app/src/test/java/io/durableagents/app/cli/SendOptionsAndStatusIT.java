package io.durableagents.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.testing.AgentsProcesses;
import io.durableagents.app.testing.RealTemporal;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * What {@code send} and {@code status} make of a session that exists, against the real Temporal dev
 * server and an {@code agents worker} process: {@code --agent} and {@code --max-steps} are refused
 * for a running session instead of being ignored, and {@code status} reads the last run's messages
 * from {@code --projection}. The commands run in-process.
 */
class SendOptionsAndStatusIT {
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
    Path script =
        Files.writeString(
            dir.resolve("script.json"),
            "{\"turns\": [{\"text\": \"One.\"}, {\"text\": \"Two.\"}, {\"text\": \"Three.\"}]}");
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

  @Test
  void startOptions_areRefusedForAnExistingSession_andTakenByANewOne() throws Exception {
    Outcome first = agents("send", "opts-1", "hello", "--projection", projection);
    assertThat(first.exitCode()).as(first.err()).isZero();

    Outcome agent =
        agents("send", "opts-1", "again", "--agent", "other", "--projection", projection);
    Outcome steps =
        agents("send", "opts-1", "again", "--max-steps", "5", "--projection", projection);

    assertThat(agent.exitCode()).as(agent.err()).isEqualTo(2);
    assertThat(agent.err().strip())
        .isEqualTo(
            "Session 'opts-1' already exists: --agent is taken only by the send that starts a"
                + " session, and would be ignored. Leave it out to continue the session, or pick a"
                + " new session id.");
    assertThat(steps.exitCode()).as(steps.err()).isEqualTo(2);
    assertThat(steps.err()).startsWith("Session 'opts-1' already exists: --max-steps is taken");
    // Nothing was sent: the session is still at its first run, and takes the next message.
    Outcome status = agents("status", "opts-1", "--json", "--projection", projection);
    assertThat(status.json().path("run").asInt()).isEqualTo(1);
    Outcome next = agents("send", "opts-1", "again", "--json", "--projection", projection);
    assertThat(next.exitCode()).as(next.err()).isZero();
    assertThat(next.json().path("run").asInt()).isEqualTo(2);

    Outcome fresh =
        agents("send", "opts-2", "hi", "--max-steps", "5", "--json", "--projection", projection);
    assertThat(fresh.exitCode()).as(fresh.err()).isZero();
    assertThat(fresh.json().path("status").asText()).isEqualTo("finished");
  }

  @Test
  void status_readsTheLastRunsMessagesFromTheProjection() throws Exception {
    Outcome sent = agents("send", "status-1", "what is new?", "--projection", projection);
    assertThat(sent.exitCode()).as(sent.err()).isZero();

    Outcome status = agents("status", "status-1", "--json", "--projection", projection);

    assertThat(status.exitCode()).as(status.err()).isZero();
    JsonNode messages = status.json().path("lastResult").path("messages");
    assertThat(messages.isArray()).as(status.out()).isTrue();
    assertThat(messages.get(0).path("role").asText()).isEqualTo("user");
    assertThat(messages.get(0).path("text").asText()).isEqualTo("what is new?");

    Outcome invalid = agents("status", "status-1", "--projection", "jdbc:nosuchdb:x");
    assertThat(invalid.exitCode()).as(invalid.err()).isEqualTo(2);

    Outcome missing =
        agents(
            "status",
            "status-1",
            "--json",
            "--projection",
            "jdbc:sqlite:" + dir.resolve("elsewhere.db"));
    assertThat(missing.exitCode()).as(missing.err()).isZero();
    assertThat(missing.err()).contains("Warning: the result is shown without its messages");
    assertThat(missing.json().path("lastResult").has("messages")).isFalse();
  }
}
