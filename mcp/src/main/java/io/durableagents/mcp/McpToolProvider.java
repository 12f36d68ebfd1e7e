package io.durableagents.mcp;

import io.durableagents.mcp.internal.McpConnection;
import io.durableagents.mcp.internal.McpToolCalls;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolProvider;
import java.util.List;

/**
 * The tools of one MCP server, for {@link io.durableagents.agent.Agent.Builder#addToolProvider}.
 * The worker keeps one connection per source, shared by every agent the source is added to, and
 * opens it again (restarting a stdio server's process) after a call found it broken. Close the
 * source when the worker stops.
 *
 * <pre>{@code
 * McpToolProvider weather = McpToolProvider.of(McpServerOptions.newBuilder("weather")
 *     .setUrl(URI.create("http://localhost:3001/mcp")).build());
 * Agent agent = Agent.newBuilder("concierge").addToolProvider(weather).build();
 * }</pre>
 */
public final class McpToolProvider implements ToolProvider, AutoCloseable {
  private final McpServerOptions options;
  private final McpConnection connection;
  private final McpToolCalls calls;

  private McpToolProvider(McpServerOptions options, McpConnection connection) {
    this.options = options;
    this.connection = connection;
    this.calls = new McpToolCalls(options, connection);
  }

  /** A source of the server's tools; nothing is started or reached before the first listing. */
  public static McpToolProvider of(McpServerOptions options) {
    return new McpToolProvider(options, new McpConnection(options));
  }

  /**
   * A provider of the same server over the same connection, with other tool choices and approval
   * policies (those of {@code options}; its connection settings are not used): how agents that take
   * different tools of one server share its connection.
   */
  public McpToolProvider withChoices(McpServerOptions options) {
    return new McpToolProvider(options, connection);
  }

  /** The server and the choices of its tools this provider gives. */
  public McpServerOptions options() {
    return options;
  }

  @Override
  public String name() {
    return "MCP server '" + options.name() + "'";
  }

  @Override
  public List<Tool> listTools() {
    return calls.list();
  }

  @Override
  public boolean optional() {
    return options.isOptional();
  }

  /** Closes the connection (shared with {@link #withChoices} providers); a stdio server stops. */
  @Override
  public void close() {
    connection.close();
  }
}
