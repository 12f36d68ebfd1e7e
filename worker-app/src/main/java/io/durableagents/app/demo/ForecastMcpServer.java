package io.durableagents.app.demo;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;

/**
 * The demo's MCP server ({@code agents mcp-demo-server}): one tool, {@code forecast {city}}, over
 * stdio, answering the same deterministic weather as the demo's {@code get_weather}. The example
 * agents file ({@code docs/examples/agents.yaml}) has the worker start it for its {@code weather}
 * agent. It lives as long as the worker that started it.
 */
public final class ForecastMcpServer {
  private static final McpJsonMapper JSON =
      new JacksonMcpJsonMapper(new com.fasterxml.jackson.databind.ObjectMapper());

  private static final String SCHEMA =
      "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},"
          + "\"required\":[\"city\"],\"additionalProperties\":false}";

  private ForecastMcpServer() {}

  /** Serves on this process's stdin and stdout until the process that started it is gone. */
  public static void serve() throws InterruptedException {
    McpSyncServer server =
        McpServer.sync(new StdioServerTransportProvider(JSON))
            .serverInfo("durable-agents-demo-forecast", "1.0")
            .jsonMapper(JSON)
            // The worker validates arguments against the schema before it calls.
            .jsonSchemaValidator(
                (schema, content) -> JsonSchemaValidator.ValidationResponse.asValid(null))
            .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
            .tools(
                SyncToolSpecification.builder()
                    .tool(
                        McpSchema.Tool.builder()
                            .name("forecast")
                            .description("Tonight's weather forecast for a city.")
                            .inputSchema(JSON, SCHEMA)
                            .build())
                    .callHandler(
                        (exchange, request) ->
                            CallToolResult.builder()
                                .structuredContent(
                                    forecast(String.valueOf(request.arguments().get("city"))))
                                .build())
                    .build())
            .build();
    ProcessHandle parent = ProcessHandle.current().parent().orElse(null);
    while (parent != null && parent.isAlive()) {
      Thread.sleep(500);
    }
    server.close();
  }

  static Map<String, Object> forecast(String city) {
    return Map.of("city", city, "forecast", "sunny", "temperatureC", 21, "source", "mcp");
  }
}
