package io.durableagents.mcp.internal;

import io.durableagents.mcp.McpServerOptions;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpTransportSessionNotFoundException;
import java.net.URI;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The SDK's streamable HTTP transport, with its transport errors kept out of the log: the SDK's
 * client logs each one as a warning with its stack trace (a server that is down: one per request,
 * at every run's start), while the same error fails the request, whose message names the server and
 * says what went wrong. Only the error the client acts on (the server lost the session) is handed
 * to it.
 */
final class HttpTransport implements McpClientTransport {
  private static final Logger log = LoggerFactory.getLogger(HttpTransport.class);

  private final McpServerOptions options;
  private final HttpClientStreamableHttpTransport delegate;

  HttpTransport(McpServerOptions options) {
    this.options = options;
    this.delegate = build(options);
  }

  // customizeRequest is deprecated in the MCP SDK for an async customizer; this synchronous header
  // copy is what it still supports, and the replacement adds nothing for fixed headers.
  @SuppressWarnings("deprecation")
  private static HttpClientStreamableHttpTransport build(McpServerOptions options) {
    URI url = options.url();
    String base = url.getScheme() + "://" + url.getRawAuthority();
    String endpoint =
        url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
    if (url.getRawQuery() != null) {
      endpoint += "?" + url.getRawQuery();
    }
    return HttpClientStreamableHttpTransport.builder(base)
        .endpoint(endpoint)
        .jsonMapper(McpConnection.JSON)
        .connectTimeout(options.connectTimeout())
        .customizeRequest(request -> options.headers().forEach(request::header))
        .build();
  }

  @Override
  public void setExceptionHandler(Consumer<Throwable> handler) {
    delegate.setExceptionHandler(
        error -> {
          if (error instanceof McpTransportSessionNotFoundException) {
            handler.accept(error);
          } else {
            log.debug("MCP server '{}': {}", options.name(), error.toString());
          }
        });
  }

  @Override
  public Mono<Void> connect(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
    return delegate.connect(handler);
  }

  @Override
  public Mono<Void> sendMessage(JSONRPCMessage message) {
    return delegate.sendMessage(message);
  }

  @Override
  public Mono<Void> closeGracefully() {
    return delegate.closeGracefully();
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
    return delegate.unmarshalFrom(data, typeRef);
  }

  @Override
  public List<String> protocolVersions() {
    return delegate.protocolVersions();
  }
}
