package io.durableagents.workflow;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Builds the structured error results a model receives in place of a tool's result. */
public final class ErrorResults {
  public static final String UNKNOWN_TOOL = "unknown_tool";
  public static final String INVALID_ARGUMENTS = "invalid_arguments";
  public static final String TOOL_ERROR = "tool_error";
  public static final String TOOL_FAILED = "tool_failed";

  private ErrorResults() {}

  public static ObjectNode of(String error, String message) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("error", error);
    if (message != null) {
      node.put("message", message);
    }
    return node;
  }
}
