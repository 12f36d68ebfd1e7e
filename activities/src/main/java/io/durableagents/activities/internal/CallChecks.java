package io.durableagents.activities.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.durableagents.activities.internal.AgentDefinition.ToolDeclaration;
import io.durableagents.activities.internal.AgentDefinitions.RunDefinition;
import io.durableagents.agent.Agent;
import io.durableagents.conversation.ToolCall;
import io.durableagents.tools.Tool;
import io.durableagents.tools.internal.SchemaValidator;
import io.durableagents.workflow.internal.activity.CallCheck;
import io.durableagents.workflow.internal.wire.ErrorResults;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Checks the calls of a model turn before any runs: unknown tool, schema validation, then the
 * tool's approval policy, all as the run's definition declares them. Recorded with the turn, so the
 * workflow knows every call's path.
 */
final class CallChecks {
  private CallChecks() {}

  static List<CallCheck> check(RunDefinition run, List<ToolCall> calls) {
    List<CallCheck> checks = new ArrayList<>(calls.size());
    for (ToolCall call : calls) {
      checks.add(check(run, call));
    }
    return checks;
  }

  /** A check against the worker's {@code agent} as it is now. */
  static CallCheck check(Agent agent, ToolCall call) {
    return check(new RunDefinition(agent, AgentDefinition.of(agent, null), null), call);
  }

  static CallCheck check(RunDefinition run, ToolCall call) {
    ToolDeclaration declared = run.definition().tool(call.name());
    if (declared == null) {
      return new CallCheck(
          ErrorResults.of(ErrorResults.UNKNOWN_TOOL, "No tool named '" + call.name() + "'."),
          false);
    }
    Tool tool = run.agent().tool(call.name());
    JsonNode arguments =
        call.arguments() == null ? JsonNodeFactory.instance.objectNode() : call.arguments();
    List<String> problems =
        tool != null && Objects.equals(tool.inputSchema(), declared.schema())
            ? tool.validate(arguments)
            : new SchemaValidator(declared.schema()).validate(arguments);
    if (!problems.isEmpty()) {
      return new CallCheck(
          ErrorResults.of(
              ErrorResults.INVALID_ARGUMENTS, invalidMessage(declared.name(), problems)),
          false);
    }
    return gated(declared, tool, arguments) ? new CallCheck(null, true) : CallCheck.RUNNABLE;
  }

  /**
   * The recorded policy decides; a policy in code is the worker's tool's, and a tool the worker no
   * longer has, or a policy that cannot decide, gates the call: asking a human is the safe side.
   */
  private static boolean gated(ToolDeclaration declared, Tool tool, JsonNode arguments) {
    if (AgentDefinition.ALWAYS.equals(declared.approval())) {
      return true;
    }
    if (AgentDefinition.NEVER.equals(declared.approval())) {
      return false;
    }
    if (tool == null) {
      return true;
    }
    try {
      return tool.needsApproval(arguments);
    } catch (RuntimeException e) {
      return true;
    }
  }

  static String invalidMessage(String toolName, List<String> problems) {
    return "Arguments of '"
        + toolName
        + "' do not match its schema: "
        + String.join("; ", problems);
  }
}
