package io.durableagents.spring.boot.internal;

import io.durableagents.agent.Agent;
import io.durableagents.spring.boot.DurableAgentsProperties;
import io.durableagents.spring.boot.DurableAgentsProperties.AgentSettings;
import io.durableagents.tools.Tool;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The agents the plugin serves: the {@link Agent} beans, then those declared under {@code
 * durable-agents.agents.<name>}, whose tools are {@link Tool} beans named by {@link Tool#name()}.
 * An unknown or ambiguous tool, or an agent name used twice, is refused naming its property.
 */
public final class AgentCatalog {
  private AgentCatalog() {}

  /** The agents, bean ones first, each name once. */
  public static List<Agent> agents(
      List<Agent> beans, List<Tool> toolBeans, DurableAgentsProperties properties) {
    Map<String, Agent> byName = new LinkedHashMap<>();
    for (Agent agent : beans) {
      if (byName.putIfAbsent(agent.name(), agent) != null) {
        throw new IllegalStateException(
            "Two Agent beans are named '" + agent.name() + "': agent names must be unique");
      }
    }
    Map<String, List<Tool>> tools = toolsByName(toolBeans);
    properties
        .getAgents()
        .forEach(
            (name, settings) -> {
              String property = DurableAgentsProperties.PREFIX + ".agents." + name;
              if (byName.containsKey(name)) {
                throw InvalidProperty.of(
                    property, name, "an Agent bean has this name already: agent names are unique");
              }
              byName.put(name, fromSettings(name, settings, tools, property));
            });
    return List.copyOf(byName.values());
  }

  private static Agent fromSettings(
      String name, AgentSettings settings, Map<String, List<Tool>> tools, String property) {
    List<Tool> chosen = new ArrayList<>();
    for (int i = 0; i < settings.getTools().size(); i++) {
      String toolName = settings.getTools().get(i);
      String toolProperty = property + ".tools[" + i + "]";
      List<Tool> matches = tools.get(toolName);
      if (matches == null) {
        throw InvalidProperty.of(
            toolProperty, toolName, "no Tool bean has this name; Tool beans: " + tools.keySet());
      }
      if (matches.size() > 1) {
        throw InvalidProperty.of(
            toolProperty, toolName, matches.size() + " Tool beans have this name: keep one");
      }
      chosen.add(matches.get(0));
    }
    Agent.Builder builder =
        Agent.newBuilder(name)
            .setInstructions(settings.getInstructions())
            .setTools(chosen)
            .setMaxSteps(settings.getMaxSteps());
    InvalidProperty.check(
        property + ".model", settings.getModel(), () -> builder.setModel(settings.getModel()));
    InvalidProperty.check(
        property + ".approval-timeout",
        settings.getApprovalTimeout(),
        () -> builder.setApprovalTimeout(settings.getApprovalTimeout()));
    return InvalidProperty.check(property, name, builder::build);
  }

  private static Map<String, List<Tool>> toolsByName(List<Tool> toolBeans) {
    Map<String, List<Tool>> byName = new LinkedHashMap<>();
    for (Tool tool : toolBeans) {
      byName.computeIfAbsent(tool.name(), n -> new ArrayList<>()).add(tool);
    }
    return byName;
  }

  /** The names of {@code agents} and the dynamic agents, sorted, for messages. */
  public static Set<String> names(List<Agent> agents, Set<String> dynamicAgents) {
    Set<String> names = new TreeSet<>(dynamicAgents);
    agents.forEach(agent -> names.add(agent.name()));
    return names;
  }
}
