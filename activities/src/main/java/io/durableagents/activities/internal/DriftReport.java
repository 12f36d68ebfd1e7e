package io.durableagents.activities.internal;

import io.durableagents.activities.internal.AgentDefinition.ToolDeclaration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Says what differs between the definition a run recorded and the worker's current one, in words an
 * operator can act on: {@code model gpt-a -> gpt-b; instructions changed; tools added: x}.
 */
final class DriftReport {
  private DriftReport() {}

  static String between(AgentDefinition recorded, AgentDefinition current) {
    List<String> changes = new ArrayList<>();
    if (!Objects.equals(recorded.model(), current.model())) {
      changes.add("model " + recorded.model() + " -> " + current.model());
    }
    if (!Objects.equals(recorded.instructions(), current.instructions())) {
      changes.add("instructions changed");
    }
    List<String> added = new ArrayList<>();
    List<String> changed = new ArrayList<>();
    for (ToolDeclaration tool : current.tools()) {
      ToolDeclaration before = recorded.tool(tool.name());
      if (before == null) {
        added.add(tool.name());
      } else if (!before.equals(tool)) {
        changed.add(tool.name() + " (" + String.join(", ", toolChanges(before, tool)) + ")");
      }
    }
    List<String> removed = new ArrayList<>();
    for (ToolDeclaration tool : recorded.tools()) {
      if (current.tool(tool.name()) == null) {
        removed.add(tool.name());
      }
    }
    listed(changes, "tools added: ", added);
    listed(changes, "tools removed: ", removed);
    listed(changes, "tools changed: ", changed);
    if (!Objects.equals(recorded.outputSchema(), current.outputSchema())) {
      changes.add("output schema changed");
    }
    budget(changes, "maxSteps", recorded.maxSteps(), current.maxSteps());
    budget(changes, "maxTokens", recorded.maxTokens(), current.maxTokens());
    budget(changes, "runTimeoutMs", recorded.runTimeoutMs(), current.runTimeoutMs());
    if (!Objects.equals(recorded.runConfig(), current.runConfig())) {
      changes.add("run configuration changed");
    }
    return changes.isEmpty() ? "definition changed" : String.join("; ", changes);
  }

  private static List<String> toolChanges(ToolDeclaration before, ToolDeclaration now) {
    List<String> what = new ArrayList<>();
    if (!Objects.equals(before.description(), now.description())) {
      what.add("description");
    }
    if (!Objects.equals(before.schema(), now.schema())) {
      what.add("schema");
    }
    if (!Objects.equals(before.approval(), now.approval())) {
      what.add("approval " + before.approval() + " -> " + now.approval());
    }
    if (!Objects.equals(before.agentFingerprint(), now.agentFingerprint())) {
      what.add("sub-agent " + now.agent() + " changed");
    }
    return what;
  }

  private static void listed(List<String> changes, String label, List<String> names) {
    if (!names.isEmpty()) {
      changes.add(label + String.join(", ", names));
    }
  }

  private static void budget(List<String> changes, String name, long before, long now) {
    if (before != now) {
      changes.add(name + " " + before + " -> " + now);
    }
  }
}
