package io.durableagents.tracing;

import io.durableagents.model.ModelResponse;

/**
 * The trace of one model turn, opened by {@link AgentTracer#modelTurn}; exactly one of its methods
 * is called, once, on the thread that opened it.
 */
public interface ModelTurnTrace {
  /** Ends nothing. */
  ModelTurnTrace NONE = new ModelTurnTrace() {};

  /** The provider answered with {@code response} (its text, tool calls, finish reason, usage). */
  default void answered(ModelResponse response) {}

  /**
   * The turn failed: {@code errorType} is its failure type (a {@code ModelException} code such as
   * {@code model_rate_limited}, or the type of another failure), {@code message} what it said.
   */
  default void failed(String errorType, String message) {}
}
