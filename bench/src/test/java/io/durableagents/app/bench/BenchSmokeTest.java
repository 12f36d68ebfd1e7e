package io.durableagents.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.app.cli.AgentsMain;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runs every measurement of {@code agents bench} in a tiny configuration on the embedded stack. A
 * smoke test: it checks that each figure is reported, never how fast anything is.
 */
class BenchSmokeTest {

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aTinyRun_reportsEveryFigure_asAPositiveNumber() throws Exception {
    StringWriter progress = new StringWriter();
    BenchReport report;
    try (Bench bench =
        new Bench(BenchConfig.tiny(), null, "default", null, new PrintWriter(progress, true))) {
      report = bench.run();
    }

    JsonNode json = new ObjectMapper().readTree(report.toJson());
    assertThat(json.isObject()).isTrue();
    assertThat(json.get("server").asText()).isEqualTo("embedded");
    for (String key : BenchReport.REQUIRED_KEYS) {
      assertThat(json.has(key)).as("key %s in %s", key, json).isTrue();
      assertThat(json.get(key).isNumber()).as("%s is a number in %s", key, json).isTrue();
      assertThat(json.get(key).asDouble()).as("%s in %s", key, json).isPositive();
    }
    assertThat(json.get("stepOverheadRatio").asDouble())
        .isEqualTo(json.get("stepOverheadRatio1").asDouble());
    // The local-activity mode: its own figures next to the default mode's.
    for (String key :
        new String[] {
          "localStepOverheadRatio",
          "localStepOverheadRatio1",
          "localStepOverheadRatio64",
          "localStepsPerSecond1",
          "localStepsPerSecond64",
          "localBaselineStepsPerSecond1",
          "localBaselineStepsPerSecond64",
          "localModeLocalActivitiesPerStep",
          "localModeHistoryEventsPerStep"
        }) {
      assertThat(json.has(key)).as("key %s in %s", key, json).isTrue();
      assertThat(json.get(key).isNumber()).as("%s is a number in %s", key, json).isTrue();
      assertThat(json.get(key).asDouble()).as("%s in %s", key, json).isPositive();
    }
    assertThat(json.get("localStepOverheadRatio").asDouble())
        .isEqualTo(json.get("localStepOverheadRatio1").asDouble());
    // Local mode: the model turn and the tool are local activities, so no activity per step.
    assertThat(json.get("localModeActivitiesPerStep").asDouble()).isZero();
    assertThat(json.get("localModeLocalActivitiesPerStep").asDouble()).isGreaterThanOrEqualTo(2);

    StringWriter table = new StringWriter();
    report.printTable(new PrintWriter(table, true));
    assertThat(table.toString())
        .contains(
            "Agent step",
            "Local activities",
            "Where a step's time goes",
            "History",
            "Approval",
            "Fork",
            "Cold replay",
            "Memory");
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void anUnreachableTemporal_failsAtOnce_withExitCode1_namingTheAddress() throws Exception {
    String address = "127.0.0.1:" + unusedPort();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    picocli.CommandLine commandLine = AgentsMain.commandLine(Map.of());
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));

    long t0 = System.nanoTime();
    int exit = commandLine.execute("bench", "--quick", "--json", "--temporal", address);
    long millis = (System.nanoTime() - t0) / 1_000_000;

    assertThat(exit).isEqualTo(1);
    assertThat(err.toString()).contains("Cannot reach Temporal at " + address);
    assertThat(out.toString()).isEmpty();
    assertThat(millis).as("milliseconds to fail").isLessThan(5_000);
  }

  private static int unusedPort() throws java.io.IOException {
    try (java.net.ServerSocket socket =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  @Test
  void theCommandIsRegistered() {
    StringWriter out = new StringWriter();
    picocli.CommandLine commandLine = AgentsMain.commandLine(Map.of());
    commandLine.setOut(new PrintWriter(out, true));

    assertThat(commandLine.execute("bench", "--help")).isZero();
    assertThat(out.toString()).contains("--quick", "--json", "--temporal", "--projection");
  }
}
