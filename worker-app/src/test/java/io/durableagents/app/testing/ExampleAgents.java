package io.durableagents.app.testing;

import io.durableagents.app.cli.AgentsMain;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The shipped example agents file, {@code docs/examples/agents.yaml} (the concierge and its {@code
 * weather} sub-agent, whose MCP tool {@code forecast} needs an approval), for tests that run it:
 * its demo MCP server is started from this JVM's classpath instead of with {@code ./agents
 * mcp-demo-server}, which a test's working directory does not have.
 */
public final class ExampleAgents {
  /** The example, relative to the module's directory (the tests' working directory). */
  public static final Path SHIPPED = Path.of("../docs/examples/agents.yaml");

  /** How the example starts the demo MCP server; {@link #text()} fails if it no longer does. */
  private static final String SHIPPED_SERVER =
      """
        forecasts:                      # the demo's MCP server: a process the worker starts (stdio)
          command: ./agents
          args: [mcp-demo-server]
      """;

  private ExampleAgents() {}

  /** The shipped example, its MCP server started from this JVM's classpath. */
  public static String text() throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String text = Files.readString(SHIPPED);
    String server =
        """
          forecasts:
            command: "%s"
            args: ["-cp", "%s", "%s", "mcp-demo-server"]
        """
            .formatted(java, System.getProperty("java.class.path"), AgentsMain.class.getName());
    if (!text.contains(SHIPPED_SERVER)) {
      throw new AssertionError(
          SHIPPED
              + " no longer starts its MCP server with:\n"
              + SHIPPED_SERVER
              + "\nbut:\n"
              + text);
    }
    return text.replace(SHIPPED_SERVER, server);
  }

  /** Writes {@link #text()} to {@code agents.yaml} in {@code dir}; returns the file. */
  public static Path write(Path dir) throws IOException {
    return Files.writeString(dir.resolve("agents.yaml"), text());
  }
}
