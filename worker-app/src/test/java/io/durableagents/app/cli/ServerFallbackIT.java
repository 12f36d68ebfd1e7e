package io.durableagents.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.app.testing.AgentsProcesses;
import io.durableagents.app.testing.AgentsProcesses.Result;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code agents server} where no Temporal CLI can be found (none on the PATH, no TEMPORAL_CLI, an
 * empty tools directory): it says so in one line, then serves on the embedded test server.
 */
class ServerFallbackIT {
  @TempDir Path workDir;

  @Test
  void withoutTheTemporalCli_serverSaysWhatItCannotDo_andServesOnTheEmbeddedServer()
      throws Exception {
    Path emptyTools = Files.createDirectories(workDir.resolve("no-tools"));
    int port = freePort();
    String temporal = "127.0.0.1:" + port;
    try (AgentsProcesses processes =
        new AgentsProcesses(workDir)
            .environment("PATH", pathWithoutTemporal())
            .environment("AGENTS_TOOLS_DIR", emptyTools.toString())) {
      processes.startAndAwait(
          "Temporal server listening on " + temporal + " (embedded test server, in memory)",
          "server",
          "--port",
          String.valueOf(port));

      String output = processes.backgroundOutput();
      assertThat(output.lines().filter(line -> line.contains("Temporal CLI not found")))
          .containsExactly("[server] " + LocalServerOptions.FALLBACK_NOTICE);
      assertThat(LocalServerOptions.FALLBACK_NOTICE)
          .contains("cannot recover sessions from killed workers")
          .contains("payload or history limits")
          .contains("scripts/install-temporal-cli");
      // It answers: a session it does not know is "not found", not "cannot reach".
      Result missing =
          processes.run(Duration.ofSeconds(60), "status", "nope", "--temporal", temporal);
      assertThat(missing.exitCode()).as(missing.err()).isEqualTo(4);
      assertThat(workDir.resolve(".agents").resolve("temporal-" + port + ".db")).doesNotExist();
    }
  }

  /** This JVM's PATH without the directories that hold a {@code temporal} executable. */
  private static String pathWithoutTemporal() {
    return Arrays.stream(System.getenv("PATH").split(File.pathSeparator))
        .filter(dir -> dir.isEmpty() || !Files.isExecutable(Path.of(dir, "temporal")))
        .collect(Collectors.joining(File.pathSeparator));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
