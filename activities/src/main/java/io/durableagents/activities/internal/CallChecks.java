package io.durableagents.activities.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.durableagents.agent.Agent;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.ErrorResults;
import io.durableagents.workflow.ToolCall;
import io.durableagents.workflow.internal.activity.CallCheck;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks the calls of a model turn before any runs: unknown tool, schema validation, then the
 * tool's approval policy. Recorded with the turn, so the workflow knows every call's path.
 */
final class CallChecks {
  private CallChecks() {}

  static List<CallCheck> check(Agent agent, List<ToolCall> calls) {
    List<CallCheck> checks = new ArrayList<>(calls.size());
    for (ToolCall call : calls) {
      checks.add(check(agent, call));
    }
    return checks;
  }

  static CallCheck check(Agent agent, ToolCall call) {
    Tool tool = agent.tool(call.name());
    if (tool == null) {
      return new CallCheck(
          ErrorResults.of(ErrorResults.UNKNOWN_TOOL, "No tool named '" + call.name() + "'."),
          false);
    }
    JsonNode arguments =
        call.arguments() == null ? JsonNodeFactory.instance.objectNode() : call.arguments();
    List<String> problems = tool.validate(arguments);
    if (!problems.isEmpty()) {
      return new CallCheck(
          ErrorResults.of(ErrorResults.INVALID_ARGUMENTS, invalidMessage(tool, problems)), false);
    }
    boolean gated;
    try {
      gated = tool.needsApproval(arguments);
    } catch (RuntimeException e) {
      // A policy that cannot decide gates the call: asking a human is the safe side.
      gated = true;
    }
    return gated ? new CallCheck(null, true) : CallCheck.RUNNABLE;
  }

  static String invalidMessage(Tool tool, List<String> problems) {
    return "Arguments of '"
        + tool.name()
        + "' do not match its schema: "
        + String.join("; ", problems);
  }
}
