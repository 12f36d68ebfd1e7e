package io.durableagents.app.agents;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.agent.CompactionPolicy;
import io.durableagents.agent.ContextOptions;
import java.util.ArrayList;
import java.util.List;

/**
 * An agent's {@code context} object: the names of {@link ContextOptions.Builder}'s setters, {@code
 * compaction} as a list of policy names. Problems are recorded with the field's line.
 */
final class ContextReader {
  static final List<String> FIELDS =
      List.of("contextWindow", "maxOutputTokens", "compaction", "threshold", "maxResultChars");

  private final AgentsFileReader reader;

  ContextReader(AgentsFileReader reader) {
    this.reader = reader;
  }

  /** The options of {@code agent}'s {@code context}; null when absent or wrong. */
  ContextOptions read(JsonNode agent, String agentPath) {
    JsonNode node = agent.get("context");
    if (node == null) {
      return null;
    }
    String path = LocatedTree.child(agentPath, "context");
    if (!node.isObject()) {
      reader.problem(path, "expected an object, got " + AgentsFileReader.describe(node));
      return null;
    }
    reader.unknownFields(node, path, FIELDS);
    ContextOptions.Builder options = ContextOptions.newBuilder();
    Long window = reader.integer(node, path, "contextWindow", 1);
    if (window != null) {
      options.setContextWindow(window.intValue());
    }
    Long output = reader.integer(node, path, "maxOutputTokens", 1);
    if (output != null) {
      options.setMaxOutputTokens(output.intValue());
    }
    Long resultChars = reader.integer(node, path, "maxResultChars", 1);
    if (resultChars != null) {
      options.setMaxResultChars(resultChars.intValue());
    }
    JsonNode threshold = node.get("threshold");
    if (threshold != null) {
      if (threshold.isNumber() && threshold.asDouble() > 0 && threshold.asDouble() <= 1) {
        options.setThreshold(threshold.asDouble());
      } else {
        reader.problem(
            LocatedTree.child(path, "threshold"),
            "expected a number above 0 and at most 1, got " + AgentsFileReader.describe(threshold));
      }
    }
    JsonNode compaction = node.get("compaction");
    if (compaction != null) {
      List<CompactionPolicy> policies = policies(compaction, LocatedTree.child(path, "compaction"));
      if (policies != null) {
        options.setCompaction(policies.toArray(CompactionPolicy[]::new));
      }
    }
    try {
      return options.build();
    } catch (IllegalArgumentException e) {
      reader.problem(path, e.getMessage());
      return null;
    }
  }

  private List<CompactionPolicy> policies(JsonNode list, String path) {
    if (!list.isArray()) {
      reader.problem(
          path,
          "expected a list of policies (clear-tool-results, window), got "
              + AgentsFileReader.describe(list));
      return null;
    }
    List<CompactionPolicy> policies = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      JsonNode entry = list.get(i);
      try {
        CompactionPolicy policy = CompactionPolicy.ofLabel(entry.isTextual() ? entry.asText() : "");
        if (policies.contains(policy)) {
          reader.problem(LocatedTree.element(path, i), "names policy " + policy.label() + " twice");
          return null;
        }
        policies.add(policy);
      } catch (IllegalArgumentException e) {
        reader.problem(
            LocatedTree.element(path, i),
            (entry.isTextual()
                    ? "unknown compaction policy '" + entry.asText() + "'"
                    : "expected a policy name, got " + AgentsFileReader.describe(entry))
                + ": use clear-tool-results or window");
        return null;
      }
    }
    return policies;
  }
}
