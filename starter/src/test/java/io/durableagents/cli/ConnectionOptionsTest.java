package io.durableagents.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

class ConnectionOptionsTest {

  /** A command that only records the options it was given. */
  @Command(name = "probe")
  static final class Probe implements Callable<Integer> {
    @Mixin ConnectionOptions connection;

    @Override
    public Integer call() {
      return 0;
    }
  }

  @TempDir Path dir;
  private Path configFile;

  @BeforeEach
  void noProfiles() throws IOException {
    // Each test names its temporal.toml, so none reads the one of the machine's user.
    configFile = Files.writeString(dir.resolve("temporal.toml"), "");
  }

  private Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>(Map.of("TEMPORAL_CONFIG_FILE", configFile.toString()));
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  private static Probe parse(Map<String, String> env, String... args) {
    Probe probe = new Probe();
    String[] all = new String[args.length + 1];
    all[0] = "probe";
    System.arraycopy(args, 0, all, 1, args.length);
    CliHarness.Outcome outcome = CliHarness.run(env, new Object[] {probe}, all);
    assertThat(outcome.exitCode()).as(outcome.err()).isZero();
    return probe;
  }

  @Test
  void withoutOptionsOrEnvironment_usesTheDocumentedDefaults() {
    Probe probe = parse(env());

    assertThat(probe.connection.temporal()).isEqualTo("127.0.0.1:7233");
    assertThat(probe.connection.namespace()).isEqualTo("default");
    assertThat(probe.connection.taskQueue()).isEqualTo("agents");
    assertThat(probe.connection.projection()).isEqualTo("jdbc:sqlite:.agents/projection.db");
  }

  @Test
  void environmentVariables_replaceTheDefaults() {
    Probe probe =
        parse(
            env(
                "TEMPORAL_ADDRESS", "temporal.internal:7233",
                "TEMPORAL_NAMESPACE", "agents-prod",
                "AGENTS_TASK_QUEUE", "support",
                "AGENTS_PROJECTION_URL", "jdbc:postgresql://db/agents"));

    assertThat(probe.connection.temporal()).isEqualTo("temporal.internal:7233");
    assertThat(probe.connection.namespace()).isEqualTo("agents-prod");
    assertThat(probe.connection.taskQueue()).isEqualTo("support");
    assertThat(probe.connection.projection()).isEqualTo("jdbc:postgresql://db/agents");
  }

  @Test
  void commandLineOptions_winOverEnvironmentVariables() {
    Probe probe =
        parse(
            env("TEMPORAL_ADDRESS", "temporal.internal:7233", "AGENTS_TASK_QUEUE", "support"),
            "--temporal",
            "127.0.0.1:9000",
            "--task-queue=other",
            "--namespace",
            "ns",
            "--projection",
            "jdbc:sqlite:data/x.db");

    assertThat(probe.connection.temporal()).isEqualTo("127.0.0.1:9000");
    assertThat(probe.connection.taskQueue()).isEqualTo("other");
    assertThat(probe.connection.namespace()).isEqualTo("ns");
    assertThat(probe.connection.projection()).isEqualTo("jdbc:sqlite:data/x.db");
  }

  @Test
  void blankEnvironmentVariables_areIgnored() {
    Probe probe = parse(env("TEMPORAL_ADDRESS", "  ", "AGENTS_TASK_QUEUE", ""));

    assertThat(probe.connection.temporal()).isEqualTo("127.0.0.1:7233");
    assertThat(probe.connection.taskQueue()).isEqualTo("agents");
  }

  @Test
  void helpShowsTheEffectiveDefaultAndItsVariable() {
    CliHarness.Outcome outcome =
        CliHarness.run(Map.of("AGENTS_TASK_QUEUE", "support"), new Object[0], "send", "--help");

    assertThat(outcome.exitCode()).isZero();
    assertThat(outcome.out()).contains("AGENTS_TASK_QUEUE").contains("default: support");
  }

  @Test
  void profileOption_picksTheTomlProfile_andTheOtherOptionsOverrideIt() throws IOException {
    Files.writeString(
        configFile,
        """
        [profile.staging]
        address = "staging.example:7233"
        namespace = "agents-staging"
        """);
    Path apiKey = Files.writeString(dir.resolve("api-key"), "k");

    Probe fromProfile = parse(env(), "--profile", "staging");
    Probe overridden =
        parse(
            env(),
            "--profile=staging",
            "--namespace",
            "other",
            "--api-key-file",
            apiKey.toString());

    assertThat(fromProfile.connection.temporal()).isEqualTo("staging.example:7233");
    assertThat(fromProfile.connection.namespace()).isEqualTo("agents-staging");
    assertThat(fromProfile.connection.settings().tls()).isFalse();
    assertThat(overridden.connection.namespace()).isEqualTo("other");
    assertThat(overridden.connection.settings().hasApiKey()).isTrue();
    assertThat(overridden.connection.settings().tls()).isTrue();
    assertThat(parse(env(), "--tls").connection.settings().tls()).isTrue();
  }

  @Test
  void aCommandWithAnUnknownProfile_exits2_withOneLine() {
    CliHarness.Outcome outcome =
        CliHarness.run(env("TEMPORAL_PROFILE", "nope"), new Object[0], "status", "chat-1");

    assertThat(outcome.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(outcome.err().strip())
        .isEqualTo(
            "No Temporal profile 'nope' (from TEMPORAL_PROFILE) in "
                + configFile
                + ": it has none.");
  }

  @Test
  void temporalSettings_areResolvedOnlyWhenUsed_soProjectionCommandsIgnoreThem() {
    Probe probe = parse(env("TEMPORAL_PROFILE", "nope"));

    assertThat(probe.connection.projection()).isEqualTo("jdbc:sqlite:.agents/projection.db");
    assertThatThrownBy(() -> probe.connection.settings())
        .isInstanceOf(CliException.class)
        .hasMessageStartingWith("No Temporal profile 'nope'");
  }

  @Test
  void helpNamesTheTemporalVariablesAndOptions() {
    CliHarness.Outcome outcome = CliHarness.run(env(), new Object[0], "send", "--help");

    assertThat(outcome.out())
        .contains(
            "--profile=NAME",
            "TEMPORAL_PROFILE",
            "--api-key-file=PATH",
            "TEMPORAL_API_KEY",
            "--tls")
        .contains("TEMPORAL_TLS_CLIENT_CERT_PATH", "TEMPORAL_ADDRESS", "default: 127.0.0.1:7233");
  }
}
