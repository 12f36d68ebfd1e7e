package io.durableagents.model.springai;

import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * A tool as Spring AI sees it: its definition only. The provider turns Spring AI's own tool
 * execution off, so the model's tool calls come back to the session, which runs them as activities;
 * a call here would run a tool outside the session's durability, so it is refused.
 */
final class DefinitionOnlyToolCallback implements ToolCallback {
  private final ToolDefinition definition;

  DefinitionOnlyToolCallback(io.durableagents.model.ToolDefinition tool, String inputSchema) {
    this.definition = new Definition(tool.name(), tool.description(), inputSchema);
  }

  @Override
  public ToolDefinition getToolDefinition() {
    return definition;
  }

  @Override
  public String call(String toolInput) {
    throw new IllegalStateException(
        "Tool '"
            + definition.name()
            + "' was called by Spring AI: the Spring AI provider runs no tool itself (its internal"
            + " tool execution must stay off); the session runs tool calls as activities.");
  }

  /** Spring AI's definition record refuses an empty description; a tool may have none. */
  private record Definition(String name, String description, String inputSchema)
      implements ToolDefinition {}
}
