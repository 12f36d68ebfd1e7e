package io.durableagents.metrics;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Receives what a worker's activities do, as they do it, for metrics: model turns, tool calls,
 * approvals, settled runs, agent drift, the projection's writes and the transcript cache. Every
 * method has a default that does nothing, so an implementation overrides what it records; {@link
 * #NONE} records nothing.
 *
 * <p>Calls come from activity threads, concurrently: an implementation must be thread-safe and
 * quick (it runs inside the work it measures). What it receives is reported by the worker that did
 * the work, at least once: an activity that ran on a worker killed before Temporal recorded it runs
 * again and is reported again, and a retried checkpoint save reports its runs and approvals again.
 * The projection is the record; these are for dashboards and alerts. Arguments are low-cardinality
 * (agent, model, tool, status and error codes, never a session id), fit for metric tags.
 */
public interface AgentMetrics {
  /** Records nothing. */
  AgentMetrics NONE = new AgentMetrics() {};

  /**
   * A model turn ended: answered ({@code errorCode} null, with its token counts) or failed with
   * {@code errorCode} (its failure type, e.g. {@code model_rate_limited}; tokens 0). One call per
   * attempt.
   */
  default void modelTurn(
      String agent,
      String model,
      Duration latency,
      long inputTokens,
      long outputTokens,
      String errorCode) {}

  /**
   * A tool call ended: with a result ({@code errorCode} null), with an error result (its code, e.g.
   * {@code invalid_arguments}), or failed for a retry ({@code errorCode} the failure's type). One
   * call per attempt.
   */
  default void toolCall(String agent, String tool, Duration latency, String errorCode) {}

  /**
   * Called once by the plugin, with what reads the approvals that wait in the projection (one
   * indexed query per call; it throws when the store is down): for gauges, read when they are
   * sampled. Every worker on the same projection reads the same figures.
   */
  default void watchWaitingApprovals(Supplier<WaitingApprovals> waiting) {}

  /** A call of {@code tool} waits for a person's decision. */
  default void approvalRequested(String agent, String tool) {}

  /**
   * A pending approval ended: {@code outcome} is {@code approved}, {@code rejected} or {@code
   * expired}; {@code waited} is from its request to its end.
   */
  default void approvalDecided(String agent, String tool, String outcome, Duration waited) {}

  /**
   * A run settled with {@code status} ({@code finished}, {@code failed}, {@code cancelled}) and
   * {@code finishReason} (e.g. {@code stop}, {@code max-steps}, {@code error}).
   */
  default void runSettled(String agent, String status, String finishReason) {}

  /**
   * A run met its agent changed since it started; {@code policy} is the agent's {@code
   * onAgentDrift} ({@code warn}, {@code error}, {@code ignore}). Once per run and worker.
   */
  default void agentDrift(String agent, String policy) {}

  /** A write of checkpoint entries to the projection took {@code latency}; failed or not. */
  default void projectionWrite(Duration latency, boolean failed) {}

  /**
   * A model turn found the session's transcript in the worker's cache ({@code hit}) or read it from
   * the store.
   */
  default void transcriptCache(boolean hit) {}
}
