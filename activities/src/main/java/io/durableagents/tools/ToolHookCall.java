package io.durableagents.tools;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * The tool call a {@link ToolHook} decides on.
 *
 * @param toolName the tool's name
 * @param arguments the call's arguments: a copy, so changing it changes nothing (rewrite them with
 *     {@link BeforeCallDecision#rewrite})
 * @param context where the call comes from: session, agent, run, tool call id, idempotency key
 */
public record ToolHookCall(String toolName, JsonNode arguments, ToolContext context) {

  /** A call; no component may be null. */
  public ToolHookCall {
    Objects.requireNonNull(toolName, "toolName");
    Objects.requireNonNull(arguments, "arguments");
    Objects.requireNonNull(context, "context");
  }
}
