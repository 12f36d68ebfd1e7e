package io.durableagents.tracing;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelRequest;

/**
 * Opens a trace span for each model turn and tool call a worker's activities run. Both methods
 * default to tracing nothing; {@link #NONE} traces nothing.
 *
 * <p>Each method is called on the activity's thread just before the work starts (the provider's
 * {@code generate}, the tool's checks, hooks and handler), and the returned trace is ended on the
 * same thread, exactly once, when the work ends: so a span made current here is current for the
 * work, and the tracing context of the activity (for example Temporal's own activity span) is
 * current when the span opens. Calls come from many activity threads at once: an implementation
 * must be thread-safe, quick, and must not throw. One call per attempt: a retried turn or call, or
 * one that runs again after its worker was lost, opens another span.
 */
public interface AgentTracer {
  /** Traces nothing. */
  AgentTracer NONE = new AgentTracer() {};

  /**
   * A model turn starts: {@code provider} (the agent's, or the plugin's default) is about to answer
   * {@code request}, which carries the session, agent, model, step, instructions and messages.
   */
  default ModelTurnTrace modelTurn(ModelProvider provider, ModelRequest request) {
    return ModelTurnTrace.NONE;
  }

  /**
   * A tool call starts: call {@code toolCallId} of {@code tool}, which the model asked for in
   * session {@code sessionId} of {@code agent}, with {@code arguments} (a JSON object, or the
   * model's raw text when it wrote none).
   */
  default ToolCallTrace toolCall(
      String sessionId, String agent, String tool, String toolCallId, JsonNode arguments) {
    return ToolCallTrace.NONE;
  }
}
