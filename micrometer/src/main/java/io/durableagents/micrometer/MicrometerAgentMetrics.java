package io.durableagents.micrometer;

import io.durableagents.metrics.AgentMetrics;
import io.durableagents.metrics.WaitingApprovals;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * {@link AgentMetrics} as Micrometer meters on a {@link MeterRegistry}. Timers count and time model
 * turns, tool calls, decided approvals and projection writes; counters count tokens, requested
 * approvals, settled runs, drift and transcript cache look-ups. Tags are low-cardinality (agent,
 * model, tool, status and error codes; never a session id); a tag with no value reads {@code none}.
 *
 * <pre>{@code
 * AgentsPluginOptions.newBuilder()
 *     .addAgent(concierge)
 *     .setMetrics(MicrometerAgentMetrics.of(meterRegistry))
 *     ...
 * }</pre>
 */
public final class MicrometerAgentMetrics implements AgentMetrics {
  /** Model turn attempts: a timer tagged agent, model, error. */
  public static final String MODEL_TURNS = "agents.model.turns";

  /** Tokens of answered model turns: a counter tagged agent, model, type (input, output). */
  public static final String MODEL_TOKENS = "agents.model.tokens";

  /** Tool call attempts: a timer tagged agent, tool, error. */
  public static final String TOOL_CALLS = "agents.tool.calls";

  /** Calls that wait for a decision: a counter tagged agent, tool. */
  public static final String APPROVALS_REQUESTED = "agents.approvals.requested";

  /**
   * Approvals that ended, timed from request to end: a timer tagged agent, tool, outcome (approved,
   * rejected, expired).
   */
  public static final String APPROVALS_DECIDED = "agents.approvals.decided";

  /** Approvals that wait for a decision in the projection, now: a gauge. */
  public static final String APPROVALS_WAITING = "agents.approvals.waiting";

  /** How long the oldest waiting approval has waited, now: a time gauge (0 when none waits). */
  public static final String APPROVALS_OLDEST_WAIT = "agents.approvals.oldest.wait";

  /** Settled runs: a counter tagged agent, status, finish_reason. */
  public static final String RUNS = "agents.runs";

  /** Runs that met their agent changed: a counter tagged agent, policy. */
  public static final String DRIFT = "agents.drift";

  /** Writes of checkpoint entries to the projection: a timer tagged outcome (success, failure). */
  public static final String PROJECTION_WRITES = "agents.projection.writes";

  /** Transcript look-ups of model turns: a counter tagged result (hit, miss). */
  public static final String TRANSCRIPT_CACHE = "agents.transcript.cache";

  private static final String NONE = "none";

  private final MeterRegistry registry;

  private MicrometerAgentMetrics(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /** Meters on {@code registry}, registered as they are first recorded. */
  public static MicrometerAgentMetrics of(MeterRegistry registry) {
    return new MicrometerAgentMetrics(registry);
  }

  @Override
  public void modelTurn(
      String agent,
      String model,
      Duration latency,
      long inputTokens,
      long outputTokens,
      String errorCode) {
    Tags tags = Tags.of("agent", value(agent), "model", value(model));
    timer(MODEL_TURNS, "Model turn attempts", tags.and("error", value(errorCode))).record(latency);
    if (errorCode == null) {
      counter(MODEL_TOKENS, "Tokens of answered model turns", tags.and("type", "input"))
          .increment((double) inputTokens);
      counter(MODEL_TOKENS, "Tokens of answered model turns", tags.and("type", "output"))
          .increment((double) outputTokens);
    }
  }

  @Override
  public void toolCall(String agent, String tool, Duration latency, String errorCode) {
    timer(
            TOOL_CALLS,
            "Tool call attempts",
            Tags.of("agent", value(agent), "tool", value(tool), "error", value(errorCode)))
        .record(latency);
  }

  /**
   * Registers the two gauges of the waiting approvals. Each sample reads the projection (one
   * indexed query); while it cannot be read the gauges read NaN.
   */
  @Override
  public void watchWaitingApprovals(Supplier<WaitingApprovals> waiting) {
    // Held strongly: a gauge keeps its source weakly, and nothing else holds this supplier.
    Gauge.builder(APPROVALS_WAITING, waiting, source -> sample(source, w -> (double) w.count()))
        .description("Approvals that wait for a decision in the projection")
        .strongReference(true)
        .register(registry);
    TimeGauge.builder(
            APPROVALS_OLDEST_WAIT,
            waiting,
            TimeUnit.MILLISECONDS,
            source -> sample(source, w -> (double) w.oldestWait().toMillis()))
        .description("How long the oldest waiting approval has waited")
        .strongReference(true)
        .register(registry);
  }

  private static double sample(
      Supplier<WaitingApprovals> source, ToDoubleFunction<WaitingApprovals> value) {
    try {
      return value.applyAsDouble(source.get());
    } catch (RuntimeException e) {
      return Double.NaN;
    }
  }

  @Override
  public void approvalRequested(String agent, String tool) {
    counter(
            APPROVALS_REQUESTED,
            "Tool calls that wait for a decision",
            Tags.of("agent", value(agent), "tool", value(tool)))
        .increment();
  }

  @Override
  public void approvalDecided(String agent, String tool, String outcome, Duration waited) {
    timer(
            APPROVALS_DECIDED,
            "Approvals that ended, from request to end",
            Tags.of("agent", value(agent), "tool", value(tool), "outcome", value(outcome)))
        .record(waited);
  }

  @Override
  public void runSettled(String agent, String status, String finishReason) {
    counter(
            RUNS,
            "Settled runs",
            Tags.of(
                "agent",
                value(agent),
                "status",
                value(status),
                "finish_reason",
                value(finishReason)))
        .increment();
  }

  @Override
  public void agentDrift(String agent, String policy) {
    counter(
            DRIFT,
            "Runs that met their agent changed",
            Tags.of("agent", value(agent), "policy", value(policy)))
        .increment();
  }

  @Override
  public void projectionWrite(Duration latency, boolean failed) {
    timer(
            PROJECTION_WRITES,
            "Writes of checkpoint entries to the projection",
            Tags.of("outcome", failed ? "failure" : "success"))
        .record(latency);
  }

  @Override
  public void transcriptCache(boolean hit) {
    counter(
            TRANSCRIPT_CACHE,
            "Transcript look-ups of model turns",
            Tags.of("result", hit ? "hit" : "miss"))
        .increment();
  }

  private Timer timer(String name, String description, Tags tags) {
    return Timer.builder(name).description(description).tags(tags).register(registry);
  }

  private Counter counter(String name, String description, Tags tags) {
    return Counter.builder(name).description(description).tags(tags).register(registry);
  }

  private static String value(String value) {
    return value == null || value.isEmpty() ? NONE : value;
  }
}
