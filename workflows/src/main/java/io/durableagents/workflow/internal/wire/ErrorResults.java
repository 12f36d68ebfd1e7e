package io.durableagents.workflow.internal.wire;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Builds the structured error results a model receives in place of a tool's result. */
public final class ErrorResults {
  public static final String UNKNOWN_TOOL = "unknown_tool";

  /** The run's recorded definition has the tool, and the worker that runs the call does not. */
  public static final String TOOL_UNAVAILABLE = "tool_unavailable";

  public static final String INVALID_ARGUMENTS = "invalid_arguments";
  public static final String TOOL_ERROR = "tool_error";
  public static final String TOOL_FAILED = "tool_failed";
  public static final String RESULT_TOO_LARGE = "result_too_large";
  public static final String STATE_TOO_LARGE = "state_too_large";
  public static final String REJECTED = "rejected";
  public static final String APPROVAL_EXPIRED = "approval_expired";
  public static final String CANCELLED = "cancelled";

  /** A sub-agent's run failed, or its session could not run. */
  public static final String SUB_AGENT_FAILED = "sub_agent_failed";

  /** A sub-agent call refused before anything started: a cycle, the depth limit, no budget left. */
  public static final String SUB_AGENT_REFUSED = "sub_agent_refused";

  /** A tool hook refused the call; the result's {@code message} is its reason. */
  public static final String TOOL_DENIED = "tool_denied";

  /** A tool hook threw; the call's result, if the handler ran, is withheld. */
  public static final String HOOK_FAILED = "hook_failed";

  /** A tool hook took longer than the plugin's tool hook timeout. */
  public static final String HOOK_TIMEOUT = "hook_timeout";

  private ErrorResults() {}

  /** {@code {"error": "rejected", "note": ...}}: what a rejected call's result is. */
  public static ObjectNode rejected(String note) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("error", REJECTED);
    if (note != null) {
      node.put("note", note);
    }
    return node;
  }

  /** {@code {"error": ..., "hook": ..., "message": ...}}: an error result a tool hook caused. */
  public static ObjectNode byHook(String error, String hook, String message) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("error", error);
    node.put("hook", hook);
    if (message != null) {
      node.put("message", message);
    }
    return node;
  }

  public static ObjectNode of(String error, String message) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("error", error);
    if (message != null) {
      node.put("message", message);
    }
    return node;
  }
}
