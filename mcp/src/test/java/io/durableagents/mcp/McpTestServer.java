package io.durableagents.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

/**
 * A real MCP server written with the SDK, run as a process of its own by the tests: {@code stdio},
 * {@code noisy} (stdio, with lines that are not JSON-RPC on stdout: one when it starts, two before
 * each answer), {@code http PORT} (streamable HTTP at {@code /mcp}), {@code silent PORT} (accepts
 * connections on the port and never answers), or {@code exit CODE} (a server that writes {@value
 * #EXIT_LINE} on stderr and exits with that code at once). Its tools:
 *
 * <ul>
 *   <li>{@code forecast {city}}: structured content with the city, a forecast and the server's pid;
 *   <li>{@code echo_meta {text}}: the text and the idempotency key the call's {@code _meta} held;
 *   <li>{@code slow {seconds, startedFile}}: answers after that many seconds; first creates the
 *       file {@code startedFile} if given, so that a test knows the call reached the server;
 *   <li>{@code broken}: a result marked as an error;
 *   <li>{@code bad_schema}: listed with an invalid input schema (a property of type 42);
 *   <li>{@code content {block}}: a result of one content block, the {@code block} argument (a
 *       content block's JSON, e.g. {@code {"type": "image", "data": ..., "mimeType": ...}}) read as
 *       the SDK's {@code McpSchema.Content} and sent back.
 * </ul>
 *
 * Its first line on stderr is {@value #READY} once it serves.
 */
public final class McpTestServer {
  public static final String READY = "mcp-test-server ready";

  /** What the server writes on stderr in {@code exit} mode before it exits. */
  public static final String EXIT_LINE = "mcp-test-server: the forecast database is missing";

  /** What the server writes on stdout in {@code noisy} mode, besides its JSON-RPC messages. */
  public static final List<String> NOISE =
      List.of("mcp-test-server starting", "{\"log\": \"about to answer\"}", "42");

  private static boolean noisy;

  private static final McpJsonMapper JSON =
      new JacksonMcpJsonMapper(new com.fasterxml.jackson.databind.ObjectMapper());

  private McpTestServer() {}

  public static void main(String[] args) throws Exception {
    String mode = args.length > 0 ? args[0] : "stdio";
    switch (mode) {
      case "http" -> serveHttp(Integer.parseInt(args[1]));
      case "silent" -> holdSilent(Integer.parseInt(args[1]));
      case "exit" -> {
        System.err.println(EXIT_LINE);
        System.exit(Integer.parseInt(args[1]));
      }
      case "noisy" -> {
        noisy = true;
        System.out.println(NOISE.get(0));
        serveStdio();
      }
      default -> serveStdio();
    }
  }

  private static void markStarted(Object startedFile) {
    if (startedFile != null) {
      try {
        Files.writeString(Path.of(startedFile.toString()), "started");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static void serveStdio() throws InterruptedException {
    McpSyncServer server = tools(McpServer.sync(new StdioServerTransportProvider(JSON)));
    System.err.println(READY);
    // A stdio server lives as long as the process that started it, also one killed with -9.
    ProcessHandle parent = ProcessHandle.current().parent().orElseThrow();
    while (parent.isAlive()) {
      Thread.sleep(500);
    }
    server.close();
    System.exit(0);
  }

  /** Accepts every connection and keeps it open without a byte: a server that hangs. */
  @SuppressWarnings("resource") // the sockets live as long as the process
  private static void holdSilent(int port) throws IOException {
    ServerSocket socket = new ServerSocket(port);
    System.err.println(READY);
    List<Socket> held = new ArrayList<>();
    while (held.add(socket.accept())) {
      System.err.println("mcp-test-server: holding connection " + held.size() + " silent");
    }
  }

  private static void serveHttp(int port) throws Exception {
    HttpServletStreamableServerTransportProvider transport =
        HttpServletStreamableServerTransportProvider.builder()
            .jsonMapper(JSON)
            .mcpEndpoint("/mcp")
            .build();
    tools(McpServer.sync(transport));
    Tomcat tomcat = new Tomcat();
    tomcat.setBaseDir(System.getProperty("java.io.tmpdir"));
    Connector connector = new Connector();
    connector.setPort(port);
    tomcat.getService().addConnector(connector);
    Context context = tomcat.addContext("", null);
    Wrapper servlet = Tomcat.addServlet(context, "mcp", transport);
    servlet.setAsyncSupported(true);
    servlet.addMapping("/*");
    tomcat.start();
    System.err.println(READY);
    tomcat.getServer().await();
  }

  private static McpSyncServer tools(McpServer.SyncSpecification<?> spec) {
    return spec.serverInfo("mcp-test-server", "1.0")
        .jsonMapper(JSON)
        .jsonSchemaValidator(
            (schema, content) -> JsonSchemaValidator.ValidationResponse.asValid(null))
        .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
        .tools(
            List.of(
                tool(
                    "forecast",
                    "The weather forecast for a city",
                    "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},"
                        + "\"required\":[\"city\"]}",
                    (exchange, request) ->
                        structured(
                            Map.of(
                                "city",
                                request.arguments().get("city"),
                                "forecast",
                                "sunny",
                                "pid",
                                ProcessHandle.current().pid()))),
                tool(
                    "echo_meta",
                    "Echoes a text and the call's _meta",
                    "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}",
                    (exchange, request) -> {
                      Map<String, Object> echoed = new LinkedHashMap<>();
                      echoed.put("text", request.arguments().get("text"));
                      echoed.put(
                          "idempotencyKey",
                          request.meta() == null ? null : request.meta().get("idempotencyKey"));
                      return structured(echoed);
                    }),
                tool(
                    "slow",
                    "Answers after some seconds",
                    "{\"type\":\"object\",\"properties\":{\"seconds\":{\"type\":\"integer\"},"
                        + "\"startedFile\":{\"type\":\"string\"}}}",
                    (exchange, request) -> {
                      long seconds = ((Number) request.arguments().get("seconds")).longValue();
                      markStarted(request.arguments().get("startedFile"));
                      try {
                        Thread.sleep(seconds * 1000);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      return structured(Map.of("slept", seconds));
                    }),
                tool(
                    "broken",
                    "Always fails",
                    "{\"type\":\"object\"}",
                    (exchange, request) ->
                        CallToolResult.builder()
                            .addTextContent("the umbrella shop is closed")
                            .isError(true)
                            .build()),
                tool(
                    "bad_schema",
                    "Listed with an invalid schema",
                    "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":42}}}",
                    (exchange, request) -> structured(Map.of("ran", true))),
                tool(
                    "content",
                    "Answers with the content block it is given",
                    "{\"type\":\"object\",\"properties\":{\"block\":{\"type\":\"object\"}}}",
                    (exchange, request) ->
                        CallToolResult.builder()
                            .content(
                                List.of(
                                    JSON.convertValue(
                                        request.arguments().get("block"), McpSchema.Content.class)))
                            .build())))
        .build();
  }

  private static SyncToolSpecification tool(
      String name,
      String description,
      String schema,
      BiFunction<
              io.modelcontextprotocol.server.McpSyncServerExchange,
              McpSchema.CallToolRequest,
              CallToolResult>
          handler) {
    return SyncToolSpecification.builder()
        .tool(
            McpSchema.Tool.builder()
                .name(name)
                .description(description)
                .inputSchema(JSON, schema)
                .build())
        .callHandler(
            (exchange, request) -> {
              if (noisy) {
                // Written before the answer, on the stdout the answer goes to.
                System.out.println(NOISE.get(1));
                System.out.println(NOISE.get(2));
                System.out.flush();
              }
              return handler.apply(exchange, request);
            })
        .build();
  }

  private static CallToolResult structured(Map<String, Object> content) {
    return CallToolResult.builder().structuredContent(content).build();
  }
}
