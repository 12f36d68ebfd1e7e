package io.durableagents.app.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.app.AgentWorker;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.testing.RealTemporal;
import io.temporal.api.workflowservice.v1.CountWorkflowExecutionsRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code agents bench --temporal ADDRESS} on the real Temporal server (the CLI's dev server), in
 * the smoke test's tiny configuration ({@code --quick} takes minutes there): every figure reported,
 * the report naming the server it ran on, nothing of the bench left running there. It never checks
 * how fast anything is.
 */
class BenchOnRealServerIT {
  @TempDir Path dir;

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aTinyRunAgainstTheDevServer_reportsEveryFigure_andTheServer() throws Exception {
    try (TemporalDevServer server = RealTemporal.start(dir)) {
      StringWriter progress = new StringWriter();
      BenchReport report;
      try (Bench bench =
          new Bench(
              BenchConfig.tiny(),
              server.address(),
              "default",
              null,
              new PrintWriter(progress, true))) {
        assertThat(bench.target()).startsWith("Temporal at " + server.address());
        report = bench.run();
      }

      JsonNode json = new ObjectMapper().readTree(report.toJson());
      assertThat(json.get("server").asText()).isEqualTo(server.address());
      for (String key : BenchReport.REQUIRED_KEYS) {
        assertThat(json.get(key)).as("key %s in %s", key, json).isNotNull();
        assertThat(json.get(key).isNumber()).as("%s is a number in %s", key, json).isTrue();
        assertThat(json.get(key).asDouble()).as("%s in %s", key, json).isPositive();
      }
      StringWriter table = new StringWriter();
      report.printTable(new PrintWriter(table, true));
      assertThat(table.toString()).contains("Temporal at " + server.address());
      System.out.println("bench (tiny) on the dev server: " + json);
      assertThat(runningWorkflows(server.address()))
          .as("workflows the bench left running")
          .isZero();
    }
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void theAnatomy_takesEveryKindOfStepApart_onTheDevServerWithAndWithoutFastDispatch()
      throws Exception {
    StringWriter progress = new StringWriter();
    List<AnatomyBench.ServerRun> runs =
        AnatomyBench.run(
            BenchConfig.tiny(),
            RealTemporal.cli(),
            null,
            "default",
            null,
            new PrintWriter(progress, true));

    assertThat(runs)
        .extracting(AnatomyBench.ServerRun::server)
        .containsExactly("dev server, its own defaults", "dev server, as agents server starts it");
    for (AnatomyBench.ServerRun run : runs) {
      assertThat(run.rows()).hasSize(4);
      for (AnatomyRow row : run.rows()) {
        String what = run.server() + ", " + row;
        assertThat(row.wallMs()).as(what).isPositive();
        assertThat(row.workflowTasksPerStep()).as(what).isPositive();
        assertThat(row.workflowTaskRunMs()).as(what).isPositive();
        // The history's parts lie within the session's wall time (same clock, same machine).
        assertThat(row.otherMs()).as(what).isGreaterThan(-0.5);
        // A plugin session starts with its look-up in the store, an activity in both modes.
        int lookUps = row.plugin() ? row.sessions() : 0;
        if (row.mode() == Bench.StepMode.ACTIVITY) {
          // A model turn and a tool call per step, and the answer's turn.
          assertThat(row.times().activities())
              .as(what)
              .isEqualTo(row.sessions() * (2 * row.steps() + 1) + lookUps);
          assertThat(row.activityRunMs()).as(what).isPositive();
        } else {
          assertThat(row.times().activities()).as(what).isEqualTo(lookUps);
        }
        assertThat(row.historyEventsPerStep()).as(what).isPositive();
        assertThat(row.historyBytesPerStep()).as(what).isPositive();
        // The start, and every activity; local activities cost one action per workflow task.
        assertThat(row.actionsPerSession())
            .as(what)
            .isGreaterThanOrEqualTo(
                row.mode() == Bench.StepMode.ACTIVITY ? 1 + 2.0 * row.steps() + 1 : 2);
        if (row.plugin()) {
          assertThat(row.handlerMs(StepProfile.MODEL_TURN)).as(what).isPositive();
        } else {
          assertThat(row.handlerMs(StepProfile.MODEL_TURN)).as(what).isNaN();
        }
      }
    }
    JsonNode json = new ObjectMapper().readTree(AnatomyBench.toJson(runs));
    assertThat(json.get("anatomy")).hasSize(2);
    assertThat(json.get("anatomy").get(1).get("steps")).hasSize(4);
    StringWriter table = new StringWriter();
    AnatomyBench.printTable(runs, new PrintWriter(table, true));
    assertThat(table.toString())
        .contains("Step anatomy on the dev server, its own defaults")
        .contains("their wait for a worker (server dispatch)");
  }

  /**
   * Workflows still running on the server, once its visibility has caught up (up to two minutes: it
   * lags on a busy machine).
   */
  private static long runningWorkflows(String address) {
    WorkflowServiceStubs service = AgentWorker.connect(address);
    try {
      return await("no workflow running, once visibility caught up")
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(200))
          .pollDelay(Duration.ZERO)
          .pollInSameThread()
          .until(
              () ->
                  service
                      .blockingStub()
                      .countWorkflowExecutions(
                          CountWorkflowExecutionsRequest.newBuilder()
                              .setNamespace("default")
                              .setQuery("ExecutionStatus = 'Running'")
                              .build())
                      .getCount(),
              running -> running == 0);
    } finally {
      service.shutdownNow();
    }
  }
}
