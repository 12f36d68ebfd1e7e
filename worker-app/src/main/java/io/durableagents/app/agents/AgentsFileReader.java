package io.durableagents.app.agents;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.agent.Agent;
import io.durableagents.agent.DriftPolicy;
import io.durableagents.app.Durations;
import io.durableagents.tools.ApprovalPolicy;
import io.durableagents.tools.Tool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Checks the tree of an agents file and builds its agents, collecting every problem rather than
 * stopping at the first, so one run of the worker lists all that needs fixing.
 */
final class AgentsFileReader {
  private static final List<String> ROOT_FIELDS = List.of("defaultAgent", "mcpServers", "agents");

  /** The fields of an agent: the names of {@link Agent.Builder}'s methods. */
  private static final List<String> AGENT_FIELDS =
      List.of(
          "name",
          "model",
          "instructions",
          "tools",
          "mcpServers",
          "subAgents",
          "maxSteps",
          "maxTokens",
          "toolConcurrency",
          "modelTimeout",
          "modelMaxAttempts",
          "runTimeout",
          "approvalTimeout",
          "idleTimeout",
          "onAgentDrift",
          "outputSchema",
          "context");

  static final List<String> TOOL_FIELDS = List.of("name", "approval");
  private static final Map<String, ApprovalPolicy> APPROVALS =
      Map.of("always", ApprovalPolicy.ALWAYS, "never", ApprovalPolicy.NEVER);

  /** As {@link Agent.Builder#build()} checks it, so the problem gets the name's line. */
  private static final String AGENT_NAME = "[A-Za-z0-9_.-]{1,64}";

  private final String source;
  private final LocatedTree tree;
  private final ToolCatalog catalog;
  private final List<AgentsFileException.Problem> problems = new ArrayList<>();
  private McpServersReader mcpServers;

  AgentsFileReader(String source, LocatedTree tree, ToolCatalog catalog) {
    this.source = source;
    this.tree = tree;
    this.catalog = catalog;
    problems.addAll(tree.problems());
  }

  AgentsFile read() {
    JsonNode root = tree.root();
    if (!root.isObject()) {
      problem(
          "",
          root.isNull()
              ? "the file is empty; expected an object with 'agents'"
              : "expected an object with 'agents', got " + describe(root));
      throw new AgentsFileException(problems);
    }
    unknownFields(root, "", ROOT_FIELDS);
    mcpServers = new McpServersReader(this, root.get("mcpServers"));
    List<SubAgentsReader.Declared> declared = new ArrayList<>();
    Map<String, String> pathsByName = new LinkedHashMap<>();
    JsonNode list = root.get("agents");
    if (list == null) {
      problem("", "missing required field 'agents'");
    } else if (!list.isArray()) {
      problem("agents", "expected a list of agents, got " + describe(list));
    } else if (list.isEmpty()) {
      problem("agents", "the list is empty; define at least one agent");
    } else {
      for (int i = 0; i < list.size(); i++) {
        String path = LocatedTree.element("agents", i);
        agent(list.get(i), path, pathsByName).ifPresent(declared::add);
      }
    }
    List<Agent> agents = new SubAgentsReader(this, declared, pathsByName.keySet()).build();
    String defaultAgent = string(root, "", "defaultAgent");
    if (defaultAgent != null && !pathsByName.isEmpty() && !pathsByName.containsKey(defaultAgent)) {
      problem(
          "defaultAgent",
          "no agent named '"
              + defaultAgent
              + "' in this file"
              + suggestion(defaultAgent, pathsByName.keySet(), "agents"));
    }
    if (!problems.isEmpty()) {
      // In file order, as a compiler lists them (List.sort is stable for one line's problems).
      problems.sort(Comparator.comparingInt(AgentsFileException.Problem::line));
      throw new AgentsFileException(problems);
    }
    return new AgentsFile(
        source,
        agents,
        defaultAgent != null ? defaultAgent : agents.get(0).name(),
        mcpServers.providers());
  }

  /**
   * The agent at {@code path}, checked and ready to build once its sub-agents are, or empty when it
   * has problems (which are recorded).
   */
  private Optional<SubAgentsReader.Declared> agent(
      JsonNode node, String path, Map<String, String> pathsByName) {
    if (!node.isObject()) {
      problem(path, "expected an agent (an object with 'name'), got " + describe(node));
      return Optional.empty();
    }
    int before = problems.size();
    unknownFields(node, path, AGENT_FIELDS);
    String name = string(node, path, "name");
    String namePath = LocatedTree.child(path, "name");
    if (name == null && !node.has("name")) {
      problem(path, "missing required field 'name'");
    } else if (name != null && !name.matches(AGENT_NAME)) {
      problem(
          namePath, "'" + name + "' is not an agent name: 1-64 letters, digits, '_', '.' or '-'");
    } else if (name != null && pathsByName.containsKey(name)) {
      problem(
          namePath,
          "a second agent named '"
              + name
              + "' (the first is at line "
              + tree.line(pathsByName.get(name))
              + ")");
    } else if (name != null) {
      pathsByName.put(name, namePath);
    }
    Agent.Builder agent = Agent.newBuilder(name == null ? "unnamed" : name);
    set(string(node, path, "model"), agent::setModel);
    set(string(node, path, "instructions"), agent::setInstructions);
    set(tools(node, path), agent::setTools);
    mcpServers
        .forAgent(node.get("mcpServers"), LocatedTree.child(path, "mcpServers"))
        .forEach(agent::addToolProvider);
    set(integer(node, path, "maxSteps", 1), n -> agent.setMaxSteps(n.intValue()));
    set(integer(node, path, "maxTokens", 0), agent::setMaxTokens);
    set(integer(node, path, "toolConcurrency", 1), n -> agent.setToolConcurrency(n.intValue()));
    set(integer(node, path, "modelMaxAttempts", 1), n -> agent.setModelMaxAttempts(n.intValue()));
    set(duration(node, path, "modelTimeout"), agent::setModelTimeout);
    set(duration(node, path, "runTimeout"), agent::setRunTimeout);
    set(duration(node, path, "approvalTimeout"), agent::setApprovalTimeout);
    set(duration(node, path, "idleTimeout"), agent::setIdleTimeout);
    set(driftPolicy(node, path), agent::setOnAgentDrift);
    set(outputSchema(node, path), agent::setOutputSchema);
    set(new ContextReader(this).read(node, path), agent::setContextOptions);
    if (problems.size() > before) {
      return Optional.empty();
    }
    return Optional.of(new SubAgentsReader.Declared(name, path, agent, node.get("subAgents")));
  }

  private List<Tool> tools(JsonNode agent, String agentPath) {
    JsonNode list = agent.get("tools");
    String path = LocatedTree.child(agentPath, "tools");
    if (list == null) {
      return null;
    }
    if (!list.isArray()) {
      problem(path, "expected a list of tools, got " + describe(list));
      return null;
    }
    List<Tool> tools = new ArrayList<>();
    Map<String, String> seen = new LinkedHashMap<>();
    for (int i = 0; i < list.size(); i++) {
      String entryPath = LocatedTree.element(path, i);
      JsonNode entry = list.get(i);
      String name;
      String namePath;
      ApprovalPolicy approval = null;
      if (entry.isTextual()) {
        // The short form: just the catalog name.
        name = entry.asText();
        namePath = entryPath;
      } else if (entry.isObject()) {
        unknownFields(entry, entryPath, TOOL_FIELDS);
        name = string(entry, entryPath, "name");
        namePath = LocatedTree.child(entryPath, "name");
        if (name == null && !entry.has("name")) {
          problem(entryPath, "missing required field 'name'");
        }
        approval = approval(entry, entryPath);
      } else {
        problem(entryPath, "expected a tool name or {name, approval}, got " + describe(entry));
        continue;
      }
      if (name == null) {
        continue;
      }
      Optional<Tool> tool = catalog.find(name);
      if (tool.isEmpty()) {
        problem(
            namePath,
            "no tool named '"
                + name
                + "' in this worker's catalog"
                + suggestion(name, catalog.names(), "known"));
      } else if (seen.containsKey(name)) {
        problem(
            namePath,
            "tool '"
                + name
                + "' is listed twice (first at line "
                + tree.line(seen.get(name))
                + ")");
      } else {
        seen.put(name, namePath);
        tools.add(approval == null ? tool.get() : ToolCatalog.withApproval(tool.get(), approval));
      }
    }
    return tools;
  }

  ApprovalPolicy approval(JsonNode tool, String toolPath) {
    String value = string(tool, toolPath, "approval");
    if (value == null) {
      return null;
    }
    ApprovalPolicy policy = APPROVALS.get(value.strip().toLowerCase(Locale.ROOT));
    if (policy == null) {
      problem(
          LocatedTree.child(toolPath, "approval"),
          "unknown approval '" + value + "'; expected always or never");
    }
    return policy;
  }

  private DriftPolicy driftPolicy(JsonNode agent, String agentPath) {
    String value = string(agent, agentPath, "onAgentDrift");
    if (value == null) {
      return null;
    }
    try {
      return DriftPolicy.fromValue(value);
    } catch (IllegalArgumentException e) {
      problem(
          LocatedTree.child(agentPath, "onAgentDrift"),
          "unknown value '" + value + "'; expected one of: warn, error, ignore");
      return null;
    }
  }

  /** The JSON schema of the final answer, written as an object in the file. */
  private String outputSchema(JsonNode agent, String agentPath) {
    JsonNode schema = agent.get("outputSchema");
    if (schema == null) {
      return null;
    }
    String path = LocatedTree.child(agentPath, "outputSchema");
    if (!schema.isObject()) {
      problem(path, "expected a JSON schema object, got " + describe(schema));
      return null;
    }
    Map<String, String> invalid = OutputSchemaCheck.problems(schema);
    invalid.forEach(
        (at, message) ->
            problem(
                at.isEmpty() ? path : path + (at.startsWith("[") ? "" : ".") + at,
                "not a valid JSON schema: " + message));
    return invalid.isEmpty() ? schema.toString() : null;
  }

  /** A string field; null when absent or wrong (then a problem is recorded). */
  String string(JsonNode object, String objectPath, String field) {
    JsonNode value = object.get(field);
    if (value == null) {
      return null;
    }
    if (!value.isTextual()) {
      problem(LocatedTree.child(objectPath, field), "expected a string, got " + describe(value));
      return null;
    }
    return value.asText();
  }

  /** A whole number of at least {@code min}; null when absent or wrong. */
  Long integer(JsonNode object, String objectPath, String field, long min) {
    JsonNode value = object.get(field);
    if (value == null) {
      return null;
    }
    String path = LocatedTree.child(objectPath, field);
    long max = field.equals("maxTokens") ? Long.MAX_VALUE : Integer.MAX_VALUE;
    if (!value.isIntegralNumber()) {
      problem(path, "expected a whole number, got " + describe(value));
      return null;
    }
    if (!value.canConvertToLong() || value.longValue() < min || value.longValue() > max) {
      problem(
          path,
          "must be "
              + (max == Long.MAX_VALUE ? "at least " + min : "between " + min + " and " + max)
              + ", got "
              + value);
      return null;
    }
    return value.longValue();
  }

  /** A positive duration; null when absent or wrong. */
  Duration duration(JsonNode object, String objectPath, String field) {
    JsonNode value = object.get(field);
    if (value == null) {
      return null;
    }
    String path = LocatedTree.child(objectPath, field);
    Optional<Duration> duration =
        value.isTextual() ? Durations.parse(value.asText()) : Optional.empty();
    if (duration.isEmpty() || duration.get().isZero()) {
      problem(
          path,
          "expected a positive duration such as PT10M, 10m, 30s or P7D, got " + describe(value));
      return null;
    }
    return duration.get();
  }

  void unknownFields(JsonNode object, String path, List<String> known) {
    for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!known.contains(name)) {
        problem(
            LocatedTree.child(path, name),
            "unknown field" + suggestion(name, known, "known fields"));
      }
    }
  }

  private static <T> void set(T value, Consumer<T> setter) {
    if (value != null) {
      setter.accept(value);
    }
  }

  void problem(String path, String message) {
    problems.add(new AgentsFileException.Problem(source, tree.line(path), path, message));
  }

  /**
   * {@code "; did you mean 'x'?"} for a near miss, else the list of {@code known} names under
   * {@code label}.
   */
  static String suggestion(String name, Collection<String> known, String label) {
    String closest = null;
    int best = Integer.MAX_VALUE;
    for (String candidate : known) {
      int distance =
          editDistance(name.toLowerCase(Locale.ROOT), candidate.toLowerCase(Locale.ROOT));
      if (distance < best) {
        best = distance;
        closest = candidate;
      }
    }
    if (closest != null && best <= Math.max(1, Math.min(3, name.length() / 3))) {
      return "; did you mean '" + closest + "'?";
    }
    return known.isEmpty() ? "" : "; " + label + ": " + String.join(", ", known);
  }

  /** Levenshtein distance: a handful of short names, so the plain table is enough. */
  private static int editDistance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }

  static String describe(JsonNode value) {
    String type =
        value.isObject()
            ? "an object"
            : value.isArray()
                ? "a list"
                : value.isTextual()
                    ? "a string"
                    : value.isBoolean() ? "a boolean" : value.isNull() ? "nothing" : "a number";
    if (value.isContainerNode() || value.isNull()) {
      return type;
    }
    String text = value.toString();
    return type + " (" + (text.length() <= 40 ? text : text.substring(0, 40) + "...") + ")";
  }
}
