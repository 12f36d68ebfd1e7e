package io.durableagents.app.cli;

import io.durableagents.app.demo.ForecastMcpServer;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code agents mcp-demo-server}: the demo's MCP server over stdio ({@link ForecastMcpServer}). */
@Command(
    name = "mcp-demo-server",
    description = {
      "Serve the demo's MCP server (tool: forecast) on stdin/stdout. A worker starts it",
      "for the weather agent of docs/examples/agents.yaml; not meant to be run by hand."
    })
public class McpDemoServerCommand implements Callable<Integer> {
  @Override
  public Integer call() throws InterruptedException {
    ForecastMcpServer.serve();
    return 0;
  }
}
