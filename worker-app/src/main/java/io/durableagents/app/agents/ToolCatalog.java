package io.durableagents.app.agents;

import io.durableagents.testing.ConciergeAgent;
import io.durableagents.tools.ApprovalPolicy;
import io.durableagents.tools.Tool;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * The tools a worker offers to agents defined in an agents file, by name: the demo's tools, plus
 * those of the {@link ToolSource}s on the classpath ({@link #installed}); other sources (MCP
 * servers) add theirs here.
 */
public final class ToolCatalog {
  private final Map<String, Tool> tools;

  private ToolCatalog(Map<String, Tool> tools) {
    this.tools = tools;
  }

  /** A catalog of {@code tools}, in that order; two tools of one name are an error. */
  public static ToolCatalog of(List<Tool> tools) {
    Map<String, Tool> byName = new LinkedHashMap<>();
    for (Tool tool : tools) {
      Objects.requireNonNull(tool, "tool");
      if (byName.put(tool.name(), tool) != null) {
        throw new IllegalArgumentException("Two tools named '" + tool.name() + "' in the catalog.");
      }
    }
    return new ToolCatalog(byName);
  }

  /** The worker app's catalog: the demo tools of {@link ConciergeAgent#tools()}. */
  public static ToolCatalog demo() {
    return of(ConciergeAgent.tools());
  }

  /**
   * The catalog of an {@code agents worker} started with environment {@code env}: the demo tools,
   * then the tools of each {@link ToolSource} on the classpath, in the order the service loader
   * finds them. A name offered twice is an error.
   */
  public static ToolCatalog installed(Map<String, String> env) {
    List<Tool> tools = new ArrayList<>(ConciergeAgent.tools());
    ServiceLoader.load(ToolSource.class).forEach(source -> tools.addAll(source.tools(env)));
    return of(tools);
  }

  /** The tool of that name, if the catalog has one. */
  public Optional<Tool> find(String name) {
    return Optional.ofNullable(tools.get(name));
  }

  /** The tool names, in catalog order. */
  public Set<String> names() {
    return tools.keySet();
  }

  /** A copy of {@code tool} whose calls {@code policy} gates instead of the tool's own policy. */
  static Tool withApproval(Tool tool, ApprovalPolicy policy) {
    return tool.toBuilder().setApprovalPolicy(policy).build();
  }
}
