package io.durableagents.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Options that can never work are refused when they are built (when the agents file is loaded),
 * with a message naming the server and the field, rather than failing every run's start.
 */
class McpServerOptionsTest {
  private static final URI URL = URI.create("http://localhost:3001/mcp");

  @Test
  void anEmptyCommand_isRefused() {
    assertThatThrownBy(() -> McpServerOptions.newBuilder("w").setCommand("", List.of()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "MCP server 'w': command is empty: it names the program the worker starts, e.g."
                + " python3.");
    assertThatThrownBy(() -> McpServerOptions.newBuilder("w").setCommand("  ", List.of()).build())
        .hasMessageStartingWith("MCP server 'w': command is empty");
  }

  @Test
  void aLineBreakInAHeaderValue_isRefused() {
    for (String value : List.of("Bearer abc\r\nX-Admin: yes", "Bearer abc\n", "a\rb")) {
      assertThatThrownBy(() -> http(Map.of("Authorization", value)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "MCP server 'n': headers.Authorization: the value holds a line break (CR or LF).");
    }
    assertThatThrownBy(() -> http(Map.of("X-Token", "a\u0000b")))
        .hasMessage(
            "MCP server 'n': headers.X-Token: the value holds a character an HTTP header cannot"
                + " carry (U+0000).");
  }

  @Test
  void aHeaderNameThatIsNoToken_isRefused() {
    for (String name : List.of("X Token", "X-Token:", "", "Tökén")) {
      assertThatThrownBy(() -> http(Map.of(name, "v")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("MCP server 'n': headers: '" + name + "' is not a header name");
    }
  }

  @Test
  void aHeaderTheHttpClientSetsItself_isRefused() {
    assertThatThrownBy(() -> http(Map.of("Host", "example.com")))
        .hasMessage("MCP server 'n': headers: 'Host' is set by the HTTP client itself.");
  }

  @Test
  void headersOnAStdioServer_andEnvOnAnHttpServer_areRefused() {
    assertThatThrownBy(
            () ->
                McpServerOptions.newBuilder("w")
                    .setCommand("python3", List.of("server.py"))
                    .setHeaders(Map.of("Authorization", "Bearer abc"))
                    .build())
        .hasMessage(
            "MCP server 'w': headers are sent to an HTTP server (url); a stdio server (command)"
                + " takes none (give it env instead).");
    assertThatThrownBy(
            () ->
                McpServerOptions.newBuilder("n")
                    .setUrl(URL)
                    .setEnv(Map.of("UNITS", "metric"))
                    .build())
        .hasMessage(
            "MCP server 'n': env is the environment of a stdio server's process (command); an"
                + " HTTP server (url) takes none (give it headers instead).");
  }

  @Test
  void aTimeoutThatOverflows_orIsNotPositive_isRefused() {
    assertThatThrownBy(
            () ->
                McpServerOptions.newBuilder("n")
                    .setUrl(URL)
                    .setToolTimeout(Duration.ofDays(1_000_000))
                    .build())
        .hasMessage(
            "MCP server 'n': toolTimeout must be positive and at most 106751 days (the longest the"
                + " MCP client can wait), got PT24000000H.");
    assertThatThrownBy(
            () ->
                McpServerOptions.newBuilder("n")
                    .setUrl(URL)
                    .setConnectTimeout(McpServerOptions.MAX_TIMEOUT.plusNanos(1))
                    .build())
        .hasMessageStartingWith("MCP server 'n': connectTimeout must be positive and at most");
    assertThatThrownBy(
            () ->
                McpServerOptions.newBuilder("n")
                    .setUrl(URL)
                    .setConnectTimeout(Duration.ofSeconds(-5))
                    .build())
        .hasMessageStartingWith("MCP server 'n': connectTimeout must be positive");
    assertThat(
            McpServerOptions.newBuilder("n")
                .setUrl(URL)
                .setToolTimeout(McpServerOptions.MAX_TIMEOUT)
                .build()
                .toolTimeout())
        .isEqualTo(McpServerOptions.MAX_TIMEOUT);
  }

  @Test
  void aUrlWithoutAHost_isRefused() {
    assertThatThrownBy(
            () -> McpServerOptions.newBuilder("n").setUrl(URI.create("http:/mcp")).build())
        .hasMessage("MCP server 'n': url http:/mcp names no host.");
  }

  @Test
  void validHeaders_areTaken() {
    McpServerOptions options =
        http(Map.of("Authorization", "Bearer abc", "X-Trace_Id.1", "a\tb é"));

    assertThat(options.headers()).containsEntry("X-Trace_Id.1", "a\tb é");
  }

  private static McpServerOptions http(Map<String, String> headers) {
    return McpServerOptions.newBuilder("n").setUrl(URL).setHeaders(headers).build();
  }
}
