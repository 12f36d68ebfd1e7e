package io.durableagents.mcp.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.mcp.McpServerOptions;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.McpHttpClientTransportAuthorizationException;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpTransportSessionNotFoundException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's one client of an MCP server, shared by all calls: opened on first use (a stdio
 * server's process is started then), and opened again after a call found it broken (the process
 * died, the HTTP server went away), so a restarted server is reached again. Failures are worded for
 * the people who run the worker: what happened to the server, never the client library's own words.
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

  /** The status the SDK's HTTP transport puts in its messages ("... Status code:404, ..."). */
  private static final Pattern HTTP_STATUS = Pattern.compile("(?i)status code:\\s*(\\d{3})");

  /** An open client, and the process behind it for a stdio server (else null). */
  static final class Session {
    private final McpSyncClient client;
    private final StdioTransport stdio;

    private Session(McpSyncClient client, StdioTransport stdio) {
      this.client = client;
      this.stdio = stdio;
    }

    McpSyncClient client() {
      return client;
    }
  }

  private final McpServerOptions options;
  private Session session;
  private boolean closed;

  public McpConnection(McpServerOptions options) {
    this.options = options;
  }

  /**
   * The open session, opening it first if needed.
   *
   * @throws IllegalStateException naming the server and saying why, when it cannot be started or
   *     reached
   */
  synchronized Session session() {
    if (closed) {
      throw new IllegalStateException("MCP server '" + options.name() + "': connection closed");
    }
    if (session == null) {
      session = open();
    }
    return session;
  }

  /** Drops {@code broken} (if it is still the open session), so the next call opens another. */
  void reset(Session broken) {
    drop(broken, broken.stdio == null ? null : broken.stdio.lost());
  }

  /**
   * Drops {@code broken} if it is still the open session; {@code lost} says why its process ended
   * (null: a request found the connection broken).
   */
  private synchronized void drop(Session broken, String lost) {
    if (session == broken && session != null) {
      if (lost != null) {
        log.warn("MCP server '{}': {}; it is started again on the next call", name(), lost);
      } else {
        log.info("MCP server '{}': connection lost, it is opened again on the next call", name());
      }
      // Not gracefully: the peer is gone, and closing fails the calls still waiting on it.
      session.client.close();
      session = null;
    }
  }

  public String name() {
    return options.name();
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (session != null) {
      closeQuietly(session.client);
      session = null;
    }
  }

  /**
   * What went wrong with a request of {@code session} that failed with {@code failure}, waited for
   * up to {@code timeout}: "the process exited with code 3 (stderr: ...)", "no answer within 1m",
   * "cannot connect to localhost:3001 (connection refused)", "HTTP 404"...
   */
  String why(Session session, Throwable failure, Duration timeout) {
    if (session != null && session.stdio != null) {
      String lost = session.stdio.lost();
      if (lost != null) {
        return lost;
      }
    }
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof TimeoutException) {
        return "no answer within " + words(timeout);
      }
      if (cause instanceof HttpConnectTimeoutException) {
        return "no connection within " + words(options.connectTimeout());
      }
      if (cause instanceof HttpTimeoutException) {
        return "no answer within " + words(timeout);
      }
      if (cause instanceof UnresolvedAddressException) {
        return "unknown host " + options.url().getHost();
      }
      if (cause instanceof ConnectException) {
        if (find(cause, UnresolvedAddressException.class) != null) {
          return "unknown host " + options.url().getHost();
        }
        String message = cause.getMessage();
        // The JDK's HTTP client says nothing of a refused connection but its type.
        return message == null || message.isBlank() ? "connection refused" : message;
      }
      if (cause instanceof McpHttpClientTransportAuthorizationException refused) {
        return "HTTP "
            + refused.getResponseInfo().statusCode()
            + ": the server refused the request's credentials (its headers)";
      }
      if (cause instanceof McpTransportSessionNotFoundException) {
        return "the server no longer knows the MCP session";
      }
      Matcher status = cause.getMessage() == null ? null : HTTP_STATUS.matcher(cause.getMessage());
      if (status != null && status.find()) {
        return "HTTP " + status.group(1) + ("404".equals(status.group(1)) ? " (not found)" : "");
      }
      if (cause.getMessage() != null && cause.getMessage().startsWith("Failed to send message")) {
        // The SDK's words for a status it has no case for (a 5xx), without the status.
        return "the server answered with an HTTP error";
      }
    }
    return rootMessage(failure);
  }

  private Session open() {
    if (options.command() != null) {
      Commands.requireRunnable(options);
    }
    StdioTransport stdio = options.command() != null ? new StdioTransport(options) : null;
    McpClientTransport transport = stdio != null ? stdio : new HttpTransport(options);
    McpSyncClient opened =
        McpClient.sync(transport)
            .clientInfo(new McpSchema.Implementation("durable-agents", "0.2.0"))
            .requestTimeout(options.toolTimeout())
            .initializationTimeout(options.connectTimeout())
            .jsonSchemaValidator(NOT_CHECKED)
            .build();
    Session opening = new Session(opened, stdio);
    if (stdio != null) {
      // A process that ends fails what waits on it at once (the handshake, the calls in flight)
      // rather than letting it wait out its timeout, and the next call starts the server again.
      stdio.onLost(
          () -> {
            try {
              opened.close();
            } catch (RuntimeException e) {
              // The SDK's client fails to close while its handshake has not begun: nothing waits
              // then, and the handshake's first message fails on the ended process.
              log.debug("MCP server '{}': closing the client failed: {}", name(), e.toString());
            }
            drop(opening, stdio.lost());
          });
    }
    try {
      opened.initialize();
    } catch (RuntimeException e) {
      String why = why(opening, e, options.connectTimeout());
      closeQuietly(opened);
      throw new IllegalStateException(
          "MCP server '"
              + name()
              + "' cannot be "
              + (stdio != null
                  ? "started (" + options.command() + ")"
                  : "reached at " + options.url())
              + ": "
              + why,
          e);
    }
    log.info("MCP server '{}': connected", name());
    return opening;
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

  private static <T extends Throwable> T find(Throwable failure, Class<T> type) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (type.isInstance(cause)) {
        return type.cast(cause);
      }
    }
    return null;
  }

  /** A timeout in words: "20s", "1m", "1500ms", "2h". */
  static String words(Duration duration) {
    if (duration.toMillis() % 1000 != 0 || duration.toMillis() < 1000) {
      return duration.toMillis() + "ms";
    }
    long seconds = duration.toSeconds();
    if (seconds % 3600 == 0) {
      return seconds / 3600 + "h";
    }
    return seconds % 60 == 0 ? seconds / 60 + "m" : seconds + "s";
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
