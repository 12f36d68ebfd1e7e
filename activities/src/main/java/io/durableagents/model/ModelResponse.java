package io.durableagents.model;

import io.durableagents.workflow.ToolCall;
import io.durableagents.workflow.Usage;
import java.util.List;

/** A complete model answer: text, tool calls, the provider's finish reason and usage. */
public record ModelResponse(String text, List<ToolCall> toolCalls, String finishReason, Usage usage) {
  public ModelResponse {
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    usage = usage == null ? Usage.ZERO : usage;
  }
}
