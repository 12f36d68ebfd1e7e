package io.durableagents.tracing;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The trace of one tool call, opened by {@link AgentTracer#toolCall}; exactly one of its methods is
 * called, once, on the thread that opened it.
 */
public interface ToolCallTrace {
  /** Ends nothing. */
  ToolCallTrace NONE = new ToolCallTrace() {};

  /**
   * The call has its result for the model: {@code errorCode} is null for a tool's result, or the
   * code of an error result (e.g. {@code invalid_arguments}, {@code tool_error}), whose {@code
   * result} is the error object the model receives.
   */
  default void ended(JsonNode result, String errorCode) {}

  /**
   * The attempt failed without a result (a transient failure the tool's retry policy retries, a
   * cancellation): {@code errorType} is the failure's type, {@code message} what it said.
   */
  default void failed(String errorType, String message) {}
}
