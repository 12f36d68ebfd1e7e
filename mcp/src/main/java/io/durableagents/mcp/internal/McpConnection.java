package io.durableagents.mcp.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.mcp.McpServerOptions;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's one client of an MCP server, shared by all calls: opened on first use (a stdio
 * server's process is started then), and opened again after a call found it broken (the process
 * died, the HTTP server went away), so a restarted server is reached again.
 */
public final class McpConnection implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(McpConnection.class);

  /** The SDK's JSON on the project's Jackson. */
  static final McpJsonMapper JSON = new JacksonMcpJsonMapper(new ObjectMapper());

  /**
   * Results' structured content is not checked against a tool's output schema: the model reads what
   * the server sent, as for any tool (and the SDK's validator needs another schema library).
   */
  private static final JsonSchemaValidator NOT_CHECKED =
      (schema, content) -> JsonSchemaValidator.ValidationResponse.asValid(null);

  private final McpServerOptions options;
  private McpSyncClient client;
  private boolean closed;

  public McpConnection(McpServerOptions options) {
    this.options = options;
  }

  /**
   * The open client, opening it first if needed.
   *
   * @throws IllegalStateException naming the server when it cannot be started or reached
   */
  public synchronized McpSyncClient client() {
    if (closed) {
      throw new IllegalStateException("MCP server '" + options.name() + "': connection closed");
    }
    if (client == null) {
      client = open();
    }
    return client;
  }

  /** Drops {@code broken} (if it is still the open client), so the next call opens another. */
  public synchronized void reset(McpSyncClient broken) {
    if (client == broken && client != null) {
      log.info("MCP server '{}': connection lost, it is opened again on the next call", name());
      // Not gracefully: the peer is gone, and closing fails the calls still waiting on it.
      client.close();
      client = null;
    }
  }

  public String name() {
    return options.name();
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (client != null) {
      closeQuietly(client);
      client = null;
    }
  }

  private McpSyncClient open() {
    McpClientTransport transport = transport();
    McpSyncClient opened =
        McpClient.sync(transport)
            .clientInfo(new McpSchema.Implementation("durable-agents", "0.2.0"))
            .requestTimeout(options.toolTimeout())
            .initializationTimeout(options.connectTimeout())
            .jsonSchemaValidator(NOT_CHECKED)
            .build();
    try {
      opened.initialize();
    } catch (RuntimeException e) {
      closeQuietly(opened);
      throw new IllegalStateException(
          "MCP server '"
              + name()
              + "' cannot be "
              + (options.command() != null ? "started (" + options.command() + ")" : "reached")
              + ": "
              + rootMessage(e),
          e);
    }
    log.info("MCP server '{}': connected", name());
    if (transport instanceof StdioClientTransport stdio) {
      watchExit(stdio, opened);
    }
    return opened;
  }

  /**
   * When a stdio server's process ends, the client is dropped at once: its waiting calls fail (to
   * be retried) rather than wait out their timeout, and the next call starts the server again.
   */
  private void watchExit(StdioClientTransport stdio, McpSyncClient opened) {
    Thread watch =
        new Thread(
            () -> {
              stdio.awaitForExit();
              reset(opened);
            },
            "mcp-exit-" + name());
    watch.setDaemon(true);
    watch.start();
  }

  // customizeRequest is deprecated in the MCP SDK for an async customizer; this synchronous header
  // copy is what it still supports, and the replacement adds nothing for fixed headers.
  @SuppressWarnings("deprecation")
  private McpClientTransport transport() {
    if (options.command() != null) {
      Commands.requireRunnable(options);
      Map<String, String> env = new HashMap<>(System.getenv());
      env.putAll(options.env());
      StdioClientTransport stdio =
          new StdioClientTransport(
              ServerParameters.builder(options.command()).args(options.args()).env(env).build(),
              JSON);
      stdio.setStdErrorHandler(line -> log.debug("MCP server '{}' stderr: {}", name(), line));
      return stdio;
    }
    URI url = options.url();
    String base = url.getScheme() + "://" + url.getRawAuthority();
    String endpoint =
        url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
    if (url.getRawQuery() != null) {
      endpoint += "?" + url.getRawQuery();
    }
    return HttpClientStreamableHttpTransport.builder(base)
        .endpoint(endpoint)
        .jsonMapper(JSON)
        .connectTimeout(options.connectTimeout())
        .customizeRequest(request -> options.headers().forEach(request::header))
        .build();
  }

  private void closeQuietly(McpSyncClient closing) {
    try {
      if (!closing.closeGracefully()) {
        closing.close();
      }
    } catch (RuntimeException e) {
      log.debug("MCP server '{}': closing the client failed: {}", name(), e.toString());
      closing.close();
    }
  }

  /** The innermost message of a failure, for errors that name the server. */
  static String rootMessage(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage();
    return message == null || message.isBlank() ? root.getClass().getSimpleName() : message;
  }
}
