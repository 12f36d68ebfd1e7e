package io.durableagents.tools;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The code of a tool. It receives arguments already validated against the tool's schema and returns
 * any value Jackson can serialize; the value becomes the call's result.
 *
 * <p>Throw {@link RetryableToolException} (or an {@link java.io.IOException}) for transient
 * failures that the tool's retry policy should retry; any other exception becomes an error result
 * {@code {"error": "tool_error", "message": ...}} for the model.
 */
@FunctionalInterface
public interface ToolHandler {
  /** Runs the call with its validated {@code arguments}; the value returned is its result. */
  Object execute(JsonNode arguments, ToolContext context) throws Exception;
}
