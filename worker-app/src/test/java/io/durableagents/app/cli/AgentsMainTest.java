package io.durableagents.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.durableagents.app.EmbeddedTemporalServer;
import io.durableagents.app.WorkerConfig;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.projection.ProjectionUrl;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class AgentsMainTest {
  private record Outcome(int exitCode, String out, String err) {}

  @TempDir Path dir;

  /** {@code pairs} plus an empty temporal.toml, so no test reads the one of the machine's user. */
  private Map<String, String> env(String... pairs) throws IOException {
    Path config = dir.resolve("temporal.toml");
    if (!Files.exists(config)) {
      Files.writeString(config, "");
    }
    Map<String, String> env = new HashMap<>(Map.of("TEMPORAL_CONFIG_FILE", config.toString()));
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  private static Outcome execute(Map<String, String> env, String... args) {
    CommandLine commandLine = AgentsMain.commandLine(env);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    return new Outcome(commandLine.execute(args), out.toString(), err.toString());
  }

  private static WorkerConfig workerConfig(Map<String, String> env, String... args) {
    CommandLine commandLine = AgentsMain.commandLine(env);
    String[] all = new String[args.length + 1];
    all[0] = "worker";
    System.arraycopy(args, 0, all, 1, args.length);
    commandLine.parseArgs(all);
    WorkerCommand worker = commandLine.getSubcommands().get("worker").getCommand();
    return worker.options.config();
  }

  @Test
  void help_listsTheWorkerAndClientCommands() {
    Outcome outcome = execute(Map.of(), "--help");

    assertThat(outcome.exitCode()).isZero();
    assertThat(outcome.out()).contains("demo", "dev", "server", "worker", "send", "status");
  }

  @Test
  void workerOptions_defaultToTheDesignedValues() throws IOException {
    WorkerConfig config = workerConfig(env());

    assertThat(config)
        .isEqualTo(
            new WorkerConfig(
                "127.0.0.1:7233", "default", "agents", "jdbc:sqlite:.agents/projection.db", null));
  }

  @Test
  void workerOptions_comeFromTheEnvironment_andOptionsWin() throws IOException {
    Map<String, String> env =
        env(
            "TEMPORAL_ADDRESS", "temporal:7233",
            "AGENTS_TASK_QUEUE", "support",
            "AGENTS_MODEL", "scripted:env.json");

    assertThat(workerConfig(env))
        .isEqualTo(
            new WorkerConfig(
                "temporal:7233",
                "default",
                "support",
                "jdbc:sqlite:.agents/projection.db",
                "scripted:env.json"));
    assertThat(
            workerConfig(env, "--model", "scripted:cli.json", "--temporal", "127.0.0.1:1")
                .modelSpec())
        .isEqualTo("scripted:cli.json");
    assertThat(
            workerConfig(env, "--model", "scripted:cli.json", "--temporal", "127.0.0.1:1")
                .temporalAddress())
        .isEqualTo("127.0.0.1:1");
  }

  @Test
  void anEmptyModelSpec_isRefused_notReadAsTheDemoScript() throws IOException {
    Map<String, String> env = env();

    assertThatThrownBy(() -> workerConfig(env, "--model", ""))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessage(
            "--model needs a spec: scripted:PATH, openai:MODEL or anthropic:MODEL, got an empty"
                + " one (leave it out for the demo script).");
    assertThatThrownBy(() -> workerConfig(env, "--model", "   "))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("got only whitespace");
    // Left out, the worker plays the demo script.
    assertThat(workerConfig(env).modelSpec()).isNull();
  }

  @Test
  void workerOptions_takeTheApiKeyAndProfileOfTheEnvironment() throws IOException {
    Files.writeString(
        dir.resolve("temporal.toml"),
        """
        [profile.cloud]
        address = "agents.a1b2c.tmprl.cloud:7233"
        namespace = "agents.a1b2c"
        """);

    WorkerConfig config =
        workerConfig(env("TEMPORAL_PROFILE", "cloud", "TEMPORAL_API_KEY", "secret"));

    assertThat(config.temporalAddress()).isEqualTo("agents.a1b2c.tmprl.cloud:7233");
    assertThat(config.namespace()).isEqualTo("agents.a1b2c");
    assertThat(config.temporal().hasApiKey()).isTrue();
    assertThat(config.temporal().tls()).isTrue();
    assertThat(WorkerCommand.readyLine(config))
        .startsWith(
            "worker polling task queue 'agents' on agents.a1b2c.tmprl.cloud:7233 (namespace agents.a1b2c, TLS, API key),")
        .doesNotContain("secret");
  }

  @Test
  void dev_refusesTemporalAndItsCredentials_becauseItRunsItsOwn() throws IOException {
    Path apiKey = Files.writeString(dir.resolve("api-key"), "k");
    for (String[] args :
        new String[][] {
          {"dev", "--temporal", "127.0.0.1:7233"},
          {"dev", "--profile", "cloud"},
          {"dev", "--api-key-file", apiKey.toString()},
          {"dev", "--tls"}
        }) {
      Outcome outcome = execute(env(), args);

      assertThat(outcome.exitCode()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(outcome.err())
          .contains("dev runs its own Temporal server, so " + args[1] + " does not apply");
    }
  }

  @Test
  void server_refusesAPortOutOfRange() {
    assertThat(execute(Map.of(), "server", "--port", "70000").exitCode()).isEqualTo(2);
    assertThat(execute(Map.of(), "server", "--port", "http").exitCode()).isEqualTo(2);
  }

  @Test
  void server_andDev_withAMissingTemporalCli_areUsageErrors_inOneLine(@TempDir Path dir) {
    String missing = dir.resolve("no-such-temporal").toString();
    for (String command : List.of("server", "dev")) {
      Outcome outcome =
          execute(
              Map.of(), command, "--port", String.valueOf(freePort()), "--temporal-cli", missing);

      assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(2);
      assertThat(outcome.err().lines().findFirst().orElseThrow())
          .isEqualTo("--temporal-cli: Temporal CLI not found or not executable: " + missing);
      assertThat(outcome.err()).doesNotContain("Exception").doesNotContain("\tat ");
      assertThat(outcome.out()).isEmpty();
    }
  }

  @Test
  void server_refusesAUiPortOutOfRange_andEmbeddedWithRealServerOptions() {
    Outcome uiPort = execute(Map.of(), "server", "--ui-port", "70000");
    assertThat(uiPort.exitCode()).isEqualTo(2);
    assertThat(uiPort.err()).contains("--ui-port must be between 1 and 65535, got 70000");

    Outcome embeddedWithCli =
        execute(Map.of(), "server", "--embedded", "--temporal-cli", "temporal");
    assertThat(embeddedWithCli.exitCode()).isEqualTo(2);
    assertThat(embeddedWithCli.err()).contains("--embedded runs the in-memory test server");
    assertThat(execute(Map.of(), "dev", "--embedded", "--ui-port", "9000").exitCode()).isEqualTo(2);
  }

  @Test
  void server_onAPortInUse_failsInOneLine_forTheRealAndTheEmbeddedServer() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      String port = String.valueOf(taken.getLocalPort());
      for (String[] args :
          List.of(
              new String[] {
                "server", "--port", port, "--temporal-cli", RealTemporal.cli().toString()
              },
              new String[] {"server", "--port", port, "--embedded"},
              new String[] {"dev", "--port", port, "--embedded"})) {
        Outcome outcome = execute(Map.of(), args);

        assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(1);
        assertThat(outcome.err().strip())
            .isEqualTo(
                "127.0.0.1:"
                    + port
                    + " is already in use (another Temporal server?): stop it or choose another --port.");
        assertThat(outcome.out()).isEmpty();
      }
    }
  }

  @Test
  void server_whoseWebUiPortIsInUse_failsInOneLine() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = freePort();
      Outcome outcome =
          execute(
              Map.of(),
              "server",
              "--port",
              String.valueOf(port),
              "--ui-port",
              String.valueOf(taken.getLocalPort()),
              "--temporal-cli",
              RealTemporal.cli().toString());

      assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(1);
      assertThat(outcome.err().strip())
          .isEqualTo(
              "127.0.0.1:"
                  + taken.getLocalPort()
                  + " is already in use (another Temporal server?): stop it or choose another --ui-port.");
    }
  }

  @Test
  void worker_andDev_whoseHttpPortIsInUse_failInOneLine_namingTheOption() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      String port = String.valueOf(taken.getLocalPort());
      for (String[] args :
          List.of(
              new String[] {"worker", "--temporal", "127.0.0.1:1", "--http-port", port},
              new String[] {
                "dev", "--embedded", "--port", String.valueOf(freePort()), "--http-port", port
              })) {
        Outcome outcome = execute(env(), args);

        assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(1);
        assertThat(outcome.err().strip())
            .isEqualTo(
                "127.0.0.1:"
                    + port
                    + " is already in use (another worker's events endpoint?): stop it or choose"
                    + " another --http-port.");
        assertThat(outcome.out()).isEmpty();
      }
    }
  }

  @Test
  void worker_whoseProjectionCannotBeOpened_failsInOneLine_namingItsUrl() throws Exception {
    Path notAFile = Files.createDirectory(dir.resolve("projection.db"));
    String url = "jdbc:sqlite:" + notAFile;
    try (EmbeddedTemporalServer server = EmbeddedTemporalServer.start(freePort())) {
      Outcome outcome =
          execute(env(), "worker", "--temporal", server.address(), "--projection", url);

      assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(1);
      assertThat(outcome.err().strip().lines()).hasSize(1);
      assertThat(outcome.err().strip())
          .startsWith("Cannot open the projection store " + url + ": ")
          .contains("SQLITE_CANTOPEN")
          .endsWith("(fix --projection or AGENTS_PROJECTION_URL).");
      assertThat(outcome.out()).isEmpty();
    }
  }

  @Test
  void worker_withAMissingScript_isAUsageError() {
    Outcome outcome =
        execute(
            Map.of(),
            "worker",
            "--model",
            "scripted:does-not-exist.json",
            "--temporal",
            "127.0.0.1:1");

    assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(2);
    assertThat(outcome.err().strip().lines()).hasSize(1);
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void readyLine_saysWhereTheWorkerPolls() {
    WorkerConfig config =
        new WorkerConfig(
            "127.0.0.1:7233", "default", "agents", "jdbc:sqlite:.agents/projection.db", null);

    assertThat(WorkerCommand.readyLine(config))
        .isEqualTo(
            "worker polling task queue 'agents' on 127.0.0.1:7233, projection jdbc:sqlite:.agents/projection.db");
  }

  @Test
  void printedUrls_hidePasswords() {
    assertThat(ProjectionUrl.describe("jdbc:postgresql://db:5432/agents?user=a&password=secret"))
        .isEqualTo("jdbc:postgresql://db:5432/agents?...");
    assertThat(ProjectionUrl.describe("jdbc:postgresql://me:secret@db/agents"))
        .isEqualTo("jdbc:postgresql://***@db/agents");
  }

  @Test
  void wrap_breaksLongTextUnderTheLabel() {
    String wrapped = DemoCommand.wrap("concierge    ", "word ".repeat(30).strip(), "             ");

    assertThat(wrapped.lines())
        .allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(78));
    assertThat(wrapped).startsWith("concierge    word word");
    assertThat(wrapped.lines().skip(1))
        .allSatisfy(line -> assertThat(line).startsWith("             word"));
  }
}
