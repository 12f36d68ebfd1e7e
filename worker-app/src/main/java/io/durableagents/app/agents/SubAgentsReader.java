package io.durableagents.app.agents;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.agent.Agent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code subAgents} of the agents of a file: each entry names another agent of the same file
 * ({@code agent}) and tells the model what it is for ({@code description}). Builds the agents so
 * that each sub-agent is built before the agents that hand tasks to it; an unknown name and a cycle
 * are problems of the entry that names them.
 */
final class SubAgentsReader {
  static final List<String> FIELDS = List.of("agent", "description");

  /** An agent of the file, checked but not built: its builder and its {@code subAgents} node. */
  record Declared(String name, String path, Agent.Builder builder, JsonNode subAgents) {}

  private final AgentsFileReader reader;
  private final Map<String, Declared> declared = new LinkedHashMap<>();
  private final Map<String, Agent> built = new LinkedHashMap<>();

  /** Every agent name of the file, those with problems of their own too. */
  private final Set<String> named;

  SubAgentsReader(AgentsFileReader reader, List<Declared> agents, Set<String> named) {
    this.reader = reader;
    this.named = named;
    agents.forEach(agent -> declared.put(agent.name(), agent));
  }

  /** The agents in file order; those with problems (recorded) left out. */
  List<Agent> build() {
    List<Agent> agents = new ArrayList<>();
    for (Declared agent : declared.values()) {
      Agent done = build(agent, new ArrayDeque<>());
      if (done != null) {
        agents.add(done);
      }
    }
    return agents;
  }

  /** Builds {@code agent} after its sub-agents; {@code chain}: the agents that wait on it. */
  private Agent build(Declared agent, Deque<String> chain) {
    if (built.containsKey(agent.name())) {
      return built.get(agent.name());
    }
    chain.addLast(agent.name());
    boolean ok = addSubAgents(agent, chain);
    chain.removeLast();
    Agent done = null;
    if (ok) {
      try {
        done = agent.builder().build();
      } catch (IllegalArgumentException | IllegalStateException e) {
        reader.problem(agent.path(), e.getMessage());
      }
    }
    built.put(agent.name(), done);
    return done;
  }

  private boolean addSubAgents(Declared agent, Deque<String> chain) {
    JsonNode list = agent.subAgents();
    String path = LocatedTree.child(agent.path(), "subAgents");
    if (list == null) {
      return true;
    }
    if (!list.isArray()) {
      reader.problem(
          path, "expected a list of {agent, description}, got " + AgentsFileReader.describe(list));
      return false;
    }
    boolean ok = true;
    for (int i = 0; i < list.size(); i++) {
      String entryPath = LocatedTree.element(path, i);
      JsonNode entry = list.get(i);
      if (!entry.isObject()) {
        reader.problem(
            entryPath,
            "expected a sub-agent {agent, description}, got " + AgentsFileReader.describe(entry));
        ok = false;
        continue;
      }
      reader.unknownFields(entry, entryPath, FIELDS);
      String name = reader.string(entry, entryPath, "agent");
      String description = reader.string(entry, entryPath, "description");
      String namePath = LocatedTree.child(entryPath, "agent");
      if (name == null || description == null || description.isBlank()) {
        reader.problem(
            entryPath,
            name == null
                ? "missing required field 'agent'"
                : "missing required field 'description' (the model chooses sub-agents by it)");
        ok = false;
        continue;
      }
      Declared target = declared.get(name);
      if (target == null && named.contains(name)) {
        // That agent has problems of its own, already listed.
        ok = false;
      } else if (target == null) {
        reader.problem(
            namePath,
            "no agent named '"
                + name
                + "' in this file"
                + AgentsFileReader.suggestion(name, named, "agents"));
        ok = false;
      } else if (chain.contains(name)) {
        reader.problem(
            namePath,
            "sub-agent cycle: "
                + String.join(" -> ", chain)
                + " -> "
                + name
                + "; an agent cannot hand a task to itself or to an agent above it");
        ok = false;
      } else {
        Agent subAgent = build(target, chain);
        if (subAgent == null) {
          ok = false;
        } else {
          try {
            agent.builder().addSubAgent(subAgent, description);
          } catch (IllegalArgumentException e) {
            reader.problem(namePath, e.getMessage());
            ok = false;
          }
        }
      }
    }
    return ok;
  }
}
