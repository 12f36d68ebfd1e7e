package io.durableagents.app.agents;

import io.durableagents.tools.Tool;
import java.util.List;
import java.util.Map;

/**
 * Tools that a jar on the worker's classpath adds to the catalog agents files pick from ({@link
 * ToolCatalog#installed}): an implementation with a public no-argument constructor, named in that
 * jar's {@code META-INF/services/io.durableagents.app.agents.ToolSource}. The chaos suite's ledger
 * tools come this way (in {@code durable-agents-bench}, docs/testing.md).
 */
public interface ToolSource {
  /**
   * The tools this source offers to a worker started with environment {@code env}; empty when it
   * has none to offer there (a source that needs a setting the environment lacks).
   */
  List<Tool> tools(Map<String, String> env);
}
