package io.durableagents.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
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
    Probe probe = parse(Map.of());

    assertThat(probe.connection.temporal()).isEqualTo("127.0.0.1:7233");
    assertThat(probe.connection.namespace()).isEqualTo("default");
    assertThat(probe.connection.taskQueue()).isEqualTo("agents");
    assertThat(probe.connection.projection()).isEqualTo("jdbc:sqlite:.agents/projection.db");
  }

  @Test
  void environmentVariables_replaceTheDefaults() {
    Probe probe =
        parse(
            Map.of(
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
            Map.of("TEMPORAL_ADDRESS", "temporal.internal:7233", "AGENTS_TASK_QUEUE", "support"),
            "--temporal", "127.0.0.1:9000",
            "--task-queue=other",
            "--namespace", "ns",
            "--projection", "jdbc:sqlite:data/x.db");

    assertThat(probe.connection.temporal()).isEqualTo("127.0.0.1:9000");
    assertThat(probe.connection.taskQueue()).isEqualTo("other");
    assertThat(probe.connection.namespace()).isEqualTo("ns");
    assertThat(probe.connection.projection()).isEqualTo("jdbc:sqlite:data/x.db");
  }

  @Test
  void blankEnvironmentVariables_areIgnored() {
    Probe probe = parse(Map.of("TEMPORAL_ADDRESS", "  ", "AGENTS_TASK_QUEUE", ""));

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
}
