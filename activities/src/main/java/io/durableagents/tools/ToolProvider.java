package io.durableagents.tools;

import java.util.List;

/**
 * Tools an agent takes from somewhere else than its code, such as the tools of an MCP server
 * ({@code durable-agents-mcp}). An agent lists its providers again when each run starts: the tools
 * listed then are part of the run's recorded definition (what the model sees, the fingerprint), so
 * a provider that changed its tools while a run was going on is drift of that run, as for any tool.
 *
 * <p>A provider's tools run like any other tool: each call is one {@code agents.ExecuteTool}
 * activity, with argument validation against the tool's schema, approval policy, hooks, timeout,
 * retries and cancellation. A name one of the agent's own tools (or an earlier provider) already
 * has is left out with a warning.
 */
public interface ToolProvider {

  /** A name for messages and logs, e.g. {@code mcp:weather}. */
  String name();

  /**
   * The provider's tools as of now, asked again at each run's start.
   *
   * @throws RuntimeException when the provider cannot be reached: a required provider fails the
   *     run's start (after the resolution's attempts) with a message naming it, an optional one is
   *     left out of that run with a warning
   */
  List<Tool> listTools();

  /**
   * Whether a run starts without this provider's tools when it cannot list them (default false: the
   * run's start fails, naming the provider).
   */
  default boolean optional() {
    return false;
  }
}
