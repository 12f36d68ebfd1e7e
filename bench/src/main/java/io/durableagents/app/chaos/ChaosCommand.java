package io.durableagents.app.chaos;

import io.durableagents.app.cli.AgentsSubcommand;
import io.durableagents.cli.ExitCodes;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code agents chaos [--sessions N] [--minutes M] [--outage S] [--seed N] [--dir DIR]}: the chaos
 * suite ({@link ChaosRun}) by hand, by default in its long form. Progress goes to stderr, the
 * counts and violations to stdout; exit code 0 when every guarantee held, 1 otherwise.
 */
@Command(
    name = "chaos",
    description = {
      "Run the chaos suite: the Temporal dev server (state in a file), PostgreSQL as the",
      "projection, three 'agents worker' processes and 'agents console', all on this machine,",
      "while sessions with ledger tools, approvals (decided through the REST API and the CLI) and",
      "forks run; workers are killed with kill -9, PostgreSQL is stopped, the server is killed and",
      "started again on its file, the console is restarted. Then every guarantee is checked and",
      "the counts are printed (docs/testing.md). Needs the Temporal CLI",
      "(scripts/install-temporal-cli); nothing of it touches TEMPORAL_ADDRESS or",
      "AGENTS_PROJECTION_URL."
    },
    footer = {"", "Exit codes: 0 every guarantee held, 1 a violation (listed), 2 usage."})
public class ChaosCommand implements Callable<Integer>, AgentsSubcommand {
  @Spec CommandSpec spec;

  @Option(
      names = "--sessions",
      paramLabel = "N",
      description =
          "Sessions started during the storm, forks not counted (default: ${DEFAULT-VALUE}).")
  int sessions = ChaosConfig.full(0).sessions();

  @Option(
      names = "--minutes",
      paramLabel = "M",
      description =
          "How long the storm lasts, in minutes (decimals allowed; at least 1; default:"
              + " ${DEFAULT-VALUE}); the sessions arrive during its first three quarters.")
  double minutes = ChaosConfig.full(0).storm().toSeconds() / 60.0;

  @Option(
      names = "--outage",
      paramLabel = "SECONDS",
      description =
          "How long each PostgreSQL outage lasts (one per 5 minutes of storm; default:"
              + " ${DEFAULT-VALUE}).")
  int outageSeconds = (int) ChaosConfig.full(0).outage().toSeconds();

  @Option(
      names = "--seed",
      paramLabel = "N",
      description = "The seed of the session plan and the fault instants (default: random).")
  Long seed;

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description =
          "Keep the run's files here (logs, ledgers, databases); default: a temporary directory,"
              + " deleted when every guarantee held.")
  Path dir;

  @Override
  public Integer call() throws IOException, InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    long runSeed = seed != null ? seed : ThreadLocalRandom.current().nextLong();
    Duration storm = Duration.ofMillis(Math.round(minutes * 60_000));
    ChaosConfig config;
    try {
      config =
          new ChaosConfig(
              sessions,
              storm,
              Duration.ofSeconds(outageSeconds),
              ChaosConfig.full(runSeed).settle(),
              runSeed);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage() + ".");
    }
    Path runDir = dir != null ? Files.createDirectories(dir) : Files.createTempDirectory("chaos");
    ChaosReport report = new ChaosRun(config, runDir, err).run();
    report.print(out, 100);
    if (report.violations().isEmpty() && dir == null) {
      delete(runDir);
    }
    return report.violations().isEmpty() ? ExitCodes.OK : ExitCodes.ERROR;
  }

  private static void delete(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(file);
      }
    }
  }
}
