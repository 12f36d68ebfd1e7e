package io.durableagents.agent;

import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolProvider;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tools an agent's {@link ToolProvider}s listed last: listed when a run starts, or on first use
 * by a worker that has not started a run of the agent yet. Each provider's tools are kept in name
 * order, so a provider that lists the same tools in another order changes no fingerprint.
 */
final class ProvidedTools {
  private static final Logger log = LoggerFactory.getLogger(ProvidedTools.class);

  private final String agent;
  private final List<ToolProvider> providers;
  private final Set<String> ownNames;
  private volatile Map<String, Tool> listed;

  ProvidedTools(String agent, List<ToolProvider> providers, Set<String> ownNames) {
    this.agent = agent;
    this.providers = List.copyOf(providers);
    this.ownNames = Set.copyOf(ownNames);
    this.listed = providers.isEmpty() ? Map.of() : null;
  }

  List<ToolProvider> providers() {
    return providers;
  }

  /** The tools listed last, listing them first if no run listed them yet. */
  List<Tool> current() {
    Map<String, Tool> tools = listed;
    return List.copyOf((tools == null ? list() : tools).values());
  }

  /** The tool of that name; a name not listed last is looked up in a new listing. */
  Tool find(String name) {
    Map<String, Tool> tools = listed;
    Tool tool = tools == null ? null : tools.get(name);
    if (tool == null && !providers.isEmpty()) {
      tool = list().get(name);
    }
    return tool;
  }

  /** Asks every provider for its tools now. */
  synchronized Map<String, Tool> list() {
    Map<String, Tool> byName = new LinkedHashMap<>();
    for (ToolProvider provider : providers) {
      List<Tool> tools;
      try {
        tools = new ArrayList<>(provider.listTools());
      } catch (RuntimeException e) {
        if (!provider.optional()) {
          throw new ToolProviderUnavailableException(
              "Agent '"
                  + agent
                  + "' cannot list the tools of "
                  + provider.name()
                  + ": "
                  + e.getMessage(),
              e);
        }
        log.warn(
            "agent '{}' goes on without the tools of optional {}: {}",
            agent,
            provider.name(),
            e.getMessage() == null ? e.toString() : e.getMessage());
        continue;
      }
      tools.sort(Comparator.comparing(Tool::name));
      for (Tool tool : tools) {
        if (ownNames.contains(tool.name()) || byName.containsKey(tool.name())) {
          log.warn(
              "agent '{}' leaves out tool '{}' of {}: another tool of the agent has that name",
              agent,
              tool.name(),
              provider.name());
          continue;
        }
        byName.put(tool.name(), tool);
      }
    }
    Map<String, Tool> tools = Collections.unmodifiableMap(byName);
    listed = tools;
    return tools;
  }
}
