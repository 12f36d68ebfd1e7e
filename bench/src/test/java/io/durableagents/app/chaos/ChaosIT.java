package io.durableagents.app.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chaos suite in its CI form ({@link ChaosConfig#ci}): 200 sessions, a 150 s storm with a 20 s
 * PostgreSQL outage, Temporal server kills, console restarts and a worker kill every 6 s on
 * average, on real processes; then every guarantee ({@link Verifier}, {@link ProjectionCheck}). The
 * same code as {@code agents chaos}. The seed is random and printed, so a failing run can be
 * replayed with {@code agents chaos --sessions 200 --minutes 2.5 --outage 20 --seed N}.
 *
 * <p>On failure the directory is kept: logs of every process, the ledgers, the Temporal and
 * PostgreSQL data, the histories of the sessions that did not settle.
 */
class ChaosIT {
  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  @Test
  @Timeout(value = 20, unit = TimeUnit.MINUTES) // a busy machine: see ChaosConfig#settle
  void everyGuaranteeHolds_throughKillsOutagesAndRestarts() throws Exception {
    long seed = ThreadLocalRandom.current().nextLong();
    PrintWriter progress =
        new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
    ChaosReport report = new ChaosRun(ChaosConfig.ci(seed), dir, progress).run();
    StringWriter counts = new StringWriter();
    report.print(new PrintWriter(counts, true), 60);
    System.out.println(counts);

    assertThat(report.violations()).as(counts.toString()).isEmpty();
    // The storm really happened, through every channel.
    assertThat(report.workerKills()).as("worker kills").isGreaterThanOrEqualTo(5);
    assertThat(report.outages()).as("PostgreSQL outages").isEqualTo(1);
    assertThat(report.serverRestarts()).as("Temporal server kills").isEqualTo(2);
    assertThat(report.consoleRestarts()).as("console restarts").isEqualTo(2);
    assertThat(report.restDecisions()).as("decisions through the REST API").isPositive();
    assertThat(report.cliDecisions()).as("decisions through the CLI").isPositive();
    assertThat(report.forks()).as("forks").isEqualTo(20);
    assertThat(report.rebuiltIdentical()).as("sessions rebuilt identical").isEqualTo(220);
  }
}
