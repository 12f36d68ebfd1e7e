package io.durableagents.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.durableagents.agent.Agent;
import io.durableagents.client.AgentClient;
import io.durableagents.session.RunStatus;
import io.durableagents.testing.AgentTestEnvironment;
import io.durableagents.tools.ApprovalPolicy;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.RunResult;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Statistic;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The meters after scripted sessions on the in-memory Temporal, read from a {@link
 * SimpleMeterRegistry}: each turn, call, approval and run once, with its tags.
 */
class MicrometerAgentMetricsTest {
  private static final String CALLS_THEN_DONE =
      """
      {"turns": [
        {"text": "checking", "usage": {"inputTokens": 100, "outputTokens": 20},
         "toolCalls": [{"name": "add", "arguments": {"a": 2, "b": 3}},
                       {"name": "add", "arguments": {"a": "two"}},
                       {"name": "book", "arguments": {}}]},
        {"text": "done", "usage": {"inputTokens": 50, "outputTokens": 5}}
      ]}
      """;

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void approvedAndExpiredSessions_countTheirTurnsCallsApprovalsAndRuns() {
    try (AgentTestEnvironment env =
        AgentTestEnvironment.newBuilder()
            .addAgent(concierge())
            .setScript(CALLS_THEN_DONE)
            .addPluginOptions(options -> options.setMetrics(MicrometerAgentMetrics.of(registry)))
            .start()) {
      AgentClient client = env.client();
      RunResult approved = client.send("approved-1", "book it");
      assertThat(approved.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
      // The gauges must not depend on what the garbage collector left of their source.
      System.gc();
      assertThat(registry.get(MicrometerAgentMetrics.APPROVALS_WAITING).gauge().value())
          .as("approvals waiting while the run is paused")
          .isEqualTo(1.0);
      assertThat(
              registry
                  .get(MicrometerAgentMetrics.APPROVALS_OLDEST_WAIT)
                  .timeGauge()
                  .value(TimeUnit.MILLISECONDS))
          .isNotNegative();
      client.approve("approved-1", approved.approval().approvalId());
      assertThat(client.awaitRun("approved-1").status()).isEqualTo(RunStatus.FINISHED);

      RunResult left = client.send("expired-1", "book it");
      assertThat(left.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
      env.workflowEnvironment().sleep(Duration.ofHours(2));
      assertThat(client.awaitRun("expired-1").status()).isEqualTo(RunStatus.FINISHED);
      assertThat(registry.get(MicrometerAgentMetrics.APPROVALS_WAITING).gauge().value())
          .isEqualTo(0.0);
      assertThat(
              registry
                  .get(MicrometerAgentMetrics.APPROVALS_OLDEST_WAIT)
                  .timeGauge()
                  .value(TimeUnit.MILLISECONDS))
          .isEqualTo(0.0);
    }

    assertThat(counts(MicrometerAgentMetrics.MODEL_TURNS))
        .containsExactlyEntriesOf(Map.of("agent=concierge,error=none,model=test-model", 4.0));
    assertThat(counts(MicrometerAgentMetrics.MODEL_TOKENS))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "agent=concierge,model=test-model,type=input", 300.0,
                "agent=concierge,model=test-model,type=output", 50.0));
    assertThat(counts(MicrometerAgentMetrics.TOOL_CALLS))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "agent=concierge,error=none,tool=add", 2.0,
                "agent=concierge,error=invalid_arguments,tool=add", 2.0,
                "agent=concierge,error=none,tool=book", 1.0));
    assertThat(counts(MicrometerAgentMetrics.APPROVALS_REQUESTED))
        .containsExactlyEntriesOf(Map.of("agent=concierge,tool=book", 2.0));
    assertThat(counts(MicrometerAgentMetrics.APPROVALS_DECIDED))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "agent=concierge,outcome=approved,tool=book", 1.0,
                "agent=concierge,outcome=expired,tool=book", 1.0));
    assertThat(
            registry
                .get(MicrometerAgentMetrics.APPROVALS_DECIDED)
                .tag("outcome", "expired")
                .timer()
                .totalTime(TimeUnit.MINUTES))
        .as("the expired approval waited its agent's approval timeout")
        .isCloseTo(60.0, within(0.1));
    assertThat(counts(MicrometerAgentMetrics.RUNS))
        .containsExactlyEntriesOf(
            Map.of("agent=concierge,finish_reason=stop,status=finished", 2.0));
    assertThat(counts(MicrometerAgentMetrics.PROJECTION_WRITES))
        .containsOnlyKeys("outcome=success")
        .allSatisfy((tags, count) -> assertThat(count).isPositive());
    assertThat(
            counts(MicrometerAgentMetrics.TRANSCRIPT_CACHE).values().stream()
                .mapToDouble(c -> c)
                .sum())
        .as("one transcript look-up per model turn")
        .isEqualTo(4.0);
  }

  @Test
  void aFailedModelTurn_isCountedWithItsErrorCode_andItsRunAsFailed() {
    try (AgentTestEnvironment env =
        AgentTestEnvironment.newBuilder()
            .addAgent(concierge())
            .setScript("{\"turns\": [{\"error\": \"the model is down\"}]}")
            .addPluginOptions(options -> options.setMetrics(MicrometerAgentMetrics.of(registry)))
            .start()) {
      assertThat(env.client().send("failed-1", "hello").status()).isEqualTo(RunStatus.FAILED);
    }

    assertThat(counts(MicrometerAgentMetrics.MODEL_TURNS))
        .containsExactlyEntriesOf(
            Map.of("agent=concierge,error=model_error,model=test-model", 1.0));
    assertThat(counts(MicrometerAgentMetrics.MODEL_TOKENS)).isEmpty();
    assertThat(counts(MicrometerAgentMetrics.RUNS))
        .containsExactlyEntriesOf(Map.of("agent=concierge,finish_reason=error,status=failed", 1.0));
  }

  private static Agent concierge() {
    return Agent.newBuilder("concierge")
        .setModel("test-model")
        .setApprovalTimeout(Duration.ofHours(1))
        .setTools(
            Tool.newBuilder("add")
                .setDescription("Adds two numbers.")
                .setInputSchema(
                    "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"number\"},"
                        + " \"b\": {\"type\": \"number\"}}, \"required\": [\"a\", \"b\"]}")
                .setHandler(
                    (arguments, context) ->
                        arguments.get("a").asDouble() + arguments.get("b").asDouble())
                .build(),
            Tool.newBuilder("book")
                .setDescription("Books a table.")
                .setInputSchema("{\"type\": \"object\"}")
                .setApprovalPolicy(ApprovalPolicy.ALWAYS)
                .setHandler((arguments, context) -> "booked")
                .build())
        .build();
  }

  /** The count (timers, counters: the total) of each meter named {@code name}, by its tags. */
  private Map<String, Double> counts(String name) {
    Map<String, Double> counts = new TreeMap<>();
    for (Meter meter : registry.find(name).meters()) {
      String tags =
          String.join(
              ",",
              meter.getId().getTags().stream().map(t -> t.getKey() + "=" + t.getValue()).toList());
      double count = 0;
      for (Measurement measurement : meter.measure()) {
        if (measurement.getStatistic() == Statistic.COUNT) {
          count = measurement.getValue();
        }
      }
      counts.put(tags, count);
    }
    return counts;
  }
}
