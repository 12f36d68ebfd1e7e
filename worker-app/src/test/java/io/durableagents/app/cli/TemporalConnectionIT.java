package io.durableagents.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.testing.AgentsProcesses;
import io.durableagents.app.testing.AgentsProcesses.Result;
import io.durableagents.app.testing.RealTemporal;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How {@code agents} processes reach the real Temporal server: through {@code TEMPORAL_ADDRESS}
 * alone or a {@code temporal.toml} profile, and with a clear one-line error within 10 s for a
 * namespace the server does not have and for an address where nothing listens. The 10 s are counted
 * beyond what the same process takes on this machine, at this moment, to start and refuse a command
 * that connects to nothing: on a busy machine the JVM's start alone can take seconds, and that is
 * not the product's to promise.
 */
class TemporalConnectionIT {
  /** What a person waits at most for a wrong setting to be named, beyond the process's start. */
  private static final Duration PROMPT = Duration.ofSeconds(10);

  /** How long a failing command may run before the test gives up on it (so it reports the time). */
  private static final Duration GIVE_UP = Duration.ofSeconds(60);

  @TempDir static Path serverDir;
  private static TemporalDevServer server;

  @TempDir Path dir;

  @BeforeAll
  static void startServer() {
    server = RealTemporal.start(serverDir);
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @Test
  void workerAndCli_connectThroughTemporalAddressAlone() throws Exception {
    Path script =
        Files.writeString(
            dir.resolve("script.json"),
            """
            {"turns": [{"text": "Hello from the real server.", "usage": {"inputTokens": 5, "outputTokens": 5}}]}
            """);
    Map<String, String> env =
        Map.of("TEMPORAL_ADDRESS", server.address(), "AGENTS_MODEL", "scripted:" + script);
    try (AgentsProcesses agents = new AgentsProcesses(dir, env)) {
      agents.startAndAwait(
          "worker polling task queue 'agents' on " + server.address() + ",", "worker");

      Result send = agents.run(Duration.ofSeconds(90), "send", "env-1", "hello", "--json");

      assertThat(send.exitCode()).as(send.err()).isZero();
      assertThat(send.json().path("status").asText()).isEqualTo("finished");
      assertThat(send.json().path("text").asText()).isEqualTo("Hello from the real server.");
      Result status = agents.run(Duration.ofSeconds(60), "status", "env-1", "--json");
      assertThat(status.exitCode()).as(status.err()).isZero();
      assertThat(status.json().path("sessionId").asText()).isEqualTo("env-1");
    }
  }

  @Test
  void aTemporalTomlProfile_pointsTheCliAtTheServer_andVariablesOverrideIt() throws Exception {
    Path toml =
        Files.writeString(
            dir.resolve("temporal.toml"),
            """
            [profile.local]
            address = "%s"
            namespace = "default"
            """
                .formatted(server.address()));

    try (AgentsProcesses agents =
        new AgentsProcesses(dir, Map.of("TEMPORAL_CONFIG_FILE", toml.toString()))) {
      Result missing = agents.run(GIVE_UP, "status", "nobody", "--profile", "local");

      assertThat(missing.exitCode()).as(missing.err()).isEqualTo(4); // connected; no such session
      assertThat(missing.err()).contains("nobody");
    }
    Map<String, String> overridden =
        Map.of(
            "TEMPORAL_CONFIG_FILE",
            toml.toString(),
            "TEMPORAL_PROFILE",
            "local",
            "TEMPORAL_NAMESPACE",
            "other-ns");
    try (AgentsProcesses agents = new AgentsProcesses(dir, overridden)) {
      Result result = agents.run(GIVE_UP, "status", "nobody");

      assertThat(result.exitCode()).as(result.err()).isEqualTo(1);
      assertThat(result.err())
          .startsWith("Namespace 'other-ns' does not exist on Temporal at " + server.address());
    }
  }

  @Test
  void unknownNamespace_isOneClearLine_exit1_withinSeconds() throws Exception {
    try (AgentsProcesses agents =
        new AgentsProcesses(
            dir,
            Map.of("TEMPORAL_ADDRESS", server.address(), "TEMPORAL_NAMESPACE", "no-such-ns"))) {
      String expected =
          "Namespace 'no-such-ns' does not exist on Temporal at "
              + server.address()
              + ": create it (temporal operator namespace create --namespace no-such-ns),"
              + " or pick another with --namespace / TEMPORAL_NAMESPACE.";

      for (String[] args :
          new String[][] {{"status", "chat-1"}, {"send", "chat-1", "hello"}, {"worker"}}) {
        Duration started = startAndRefuse(agents);
        long start = System.nanoTime();
        Result result = agents.run(GIVE_UP, args);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(result.exitCode()).as(args[0] + ": " + result.err()).isEqualTo(1);
        assertThat(result.err().strip()).as(args[0]).isEqualTo(expected);
        assertThat(took).as(args[0]).isLessThan(started.plus(PROMPT));
      }
    }
  }

  @Test
  void unreachableAddress_isOneClearLine_exit1_withinSeconds() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    String address = "127.0.0.1:" + closedPort;
    try (AgentsProcesses agents = new AgentsProcesses(dir, Map.of("TEMPORAL_ADDRESS", address))) {
      for (String[] args : new String[][] {{"send", "chat-1", "hello"}, {"worker"}}) {
        Duration started = startAndRefuse(agents);
        long start = System.nanoTime();
        Result result = agents.run(GIVE_UP, args);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(result.exitCode()).as(args[0] + ": " + result.err()).isEqualTo(1);
        assertThat(result.err().strip().lines()).as(args[0]).hasSize(1);
        assertThat(result.err())
            .as(args[0])
            .startsWith("Cannot reach Temporal at " + address + " (")
            .contains(
                "start one with './agents dev', or point --temporal / TEMPORAL_ADDRESS at yours.");
        assertThat(took).as(args[0]).isLessThan(started.plus(PROMPT));
      }
    }
  }

  /**
   * How long an {@code agents} process takes now to start and refuse a command before it connects
   * (an invalid session id, exit 2): the machine's share of the time a failing connection takes.
   */
  private static Duration startAndRefuse(AgentsProcesses agents) throws Exception {
    long start = System.nanoTime();
    Result refused = agents.run(GIVE_UP, "status", "not a session id");
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(refused.exitCode()).as(refused.err()).isEqualTo(2);
    return took;
  }

  @Test
  void missingTlsFile_isAUsageError_beforeConnecting() throws IOException, InterruptedException {
    Path missing = dir.resolve("client.pem");
    try (AgentsProcesses agents =
        new AgentsProcesses(
            dir,
            Map.of(
                "TEMPORAL_ADDRESS", server.address(),
                "TEMPORAL_TLS_CLIENT_CERT_PATH", missing.toString(),
                "TEMPORAL_TLS_CLIENT_KEY_PATH", missing.toString()))) {
      Result result = agents.run(PROMPT, "worker");

      assertThat(result.exitCode()).as(result.err()).isEqualTo(2);
      assertThat(result.err().strip())
          .isEqualTo(
              "TLS client certificate not found: "
                  + missing
                  + " (TEMPORAL_TLS_CLIENT_CERT_PATH / tls.client_cert_path).");
    }
  }
}
