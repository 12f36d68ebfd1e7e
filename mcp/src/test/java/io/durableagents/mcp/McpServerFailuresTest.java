package io.durableagents.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolContext;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Servers that fail, each a real process the test starts: a stdio server that exits at once, one
 * that cannot start, one that writes other lines on stdout; HTTP servers that are down, at the
 * wrong path, or that never answer. Each failure is noticed at once where it can be, and said in
 * the product's words: what happened to the server, never the client library's.
 */
class McpServerFailuresTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Far longer than any failure here may take to be noticed. */
  private static final Duration PATIENT = Duration.ofSeconds(60);

  @TempDir Path dir;

  private McpToolProvider source;

  @AfterEach
  void closeSource() {
    if (source != null) {
      source.close();
    }
  }

  @Test
  void aStdioServerThatExitsAtOnce_failsItsListingAtOnce_withItsExitCodeAndLastStderrLine() {
    source = McpToolProvider.of(stdio("exit", "3").build());

    Timed<Throwable> failure = timed(() -> catchThrowable(source::listTools));

    assertThat(failure.value())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "MCP server 'test' cannot be started ("
                + McpServerProcess.command().get(0)
                + "): the process exited with code 3 (stderr: "
                + McpTestServer.EXIT_LINE
                + ")");
    assertThat(failure.took())
        .as("noticed when the process exits, not after the 60 s connect timeout")
        .isLessThan(Duration.ofSeconds(20));
  }

  @Test
  void aStdioCommandThatCannotRun_failsAtOnce_sayingWhy() throws Exception {
    Path script = dir.resolve("weather-server");
    Files.writeString(script, "#!/nonexistent/interpreter\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    source =
        McpToolProvider.of(
            McpServerOptions.newBuilder("test")
                .setCommand(script.toString(), List.of())
                .setConnectTimeout(PATIENT)
                .build());

    Timed<Throwable> failure = timed(() -> catchThrowable(source::listTools));

    assertThat(failure.value())
        .hasMessageStartingWith(
            "MCP server 'test' cannot be started (" + script + "): the process did not start: ")
        .hasMessageContaining("No such file or directory");
    assertThat(failure.took()).isLessThan(Duration.ofSeconds(10));

    McpToolProvider directory =
        McpToolProvider.of(
            McpServerOptions.newBuilder("test").setCommand(dir.toString(), List.of()).build());
    assertThatThrownBy(directory::listTools)
        .hasMessage("MCP server 'test' cannot be started: no executable file " + dir);
    directory.close();
  }

  @Test
  void aStdioServerThatWritesOtherLinesOnStdout_answersStill_andEachLineIsWarnedAboutOnce()
      throws Exception {
    source = McpToolProvider.of(stdio("noisy").setToolTimeout(Duration.ofSeconds(30)).build());
    ToolContext context =
        ToolContext.newBuilder()
            .setToolCallId("c")
            .setSessionId("s")
            .setIdempotencyKey("k")
            .build();

    String logged =
        stderrOf(
            () -> {
              Tool forecast =
                  source.listTools().stream()
                      .filter(tool -> tool.name().equals("forecast"))
                      .findFirst()
                      .orElseThrow();
              for (String city : List.of("Oslo", "Rome")) {
                Timed<Object> answer =
                    timed(() -> forecast.handler().execute(cityArgument(city), context));
                assertThat(((JsonNode) answer.value()).at("/structuredContent/city").asText())
                    .isEqualTo(city);
                assertThat(answer.took())
                    .as("the answer after the other lines is read, not waited out")
                    .isLessThan(Duration.ofSeconds(10));
              }
              return null;
            });

    List<String> warnings =
        logged.lines().filter(line -> line.contains("not a JSON-RPC message")).toList();
    assertThat(warnings)
        .hasSize(5)
        .allSatisfy(line -> assertThat(line).contains("WARN").contains("MCP server 'test'"));
    assertThat(warnings.get(0)).endsWith(": " + McpTestServer.NOISE.get(0));
    assertThat(warnings.get(1)).endsWith(": " + McpTestServer.NOISE.get(1));
    assertThat(warnings.get(2)).endsWith(": " + McpTestServer.NOISE.get(2));
    assertThat(logged).doesNotContain("\tat ");
  }

  @Test
  void anHttpServerThatIsDown_failsAtOnce_connectionRefused() throws Exception {
    McpServerProcess server = McpServerProcess.http(0);
    server.kill();
    source = McpToolProvider.of(http(server.url()).build());

    String logged =
        stderrOf(
            () -> {
              assertFailsFast("connection refused", server.url());
              return null;
            });

    assertThat(logged).as("no stack trace of the client library").doesNotContain("\tat ");
  }

  @Test
  void anHttpServerAtAnotherPath_failsAtOnce_withTheHttpStatus() throws Exception {
    try (McpServerProcess server = McpServerProcess.http(0)) {
      String wrong = server.url().replace("/mcp", "/not-mcp");
      source = McpToolProvider.of(http(wrong).build());

      assertFailsFast("HTTP 404 (not found)", wrong);
    }
  }

  @Test
  void anHttpServerThatNeverAnswers_failsAfterTheConnectTimeout_inWords() throws Exception {
    try (McpServerProcess server = McpServerProcess.silent()) {
      source =
          McpToolProvider.of(http(server.url()).setConnectTimeout(Duration.ofMillis(1500)).build());

      assertThatThrownBy(source::listTools)
          .hasMessage(
              "MCP server 'test' cannot be reached at "
                  + server.url()
                  + ": no answer within 1500ms");
    }
  }

  @Test
  void theLongestTimeouts_serveCalls() throws Exception {
    source =
        McpToolProvider.of(
            stdio("stdio")
                .setToolTimeout(McpServerOptions.MAX_TIMEOUT)
                .setConnectTimeout(McpServerOptions.MAX_TIMEOUT)
                .build());
    Tool forecast =
        source.listTools().stream()
            .filter(tool -> tool.name().equals("forecast"))
            .findFirst()
            .orElseThrow();
    ToolContext context =
        ToolContext.newBuilder()
            .setToolCallId("c")
            .setSessionId("s")
            .setIdempotencyKey("k")
            .build();

    JsonNode answer = (JsonNode) forecast.handler().execute(cityArgument("Oslo"), context);

    assertThat(answer.at("/structuredContent/forecast").asText()).isEqualTo("sunny");
  }

  private void assertFailsFast(String why, String url) {
    Timed<Throwable> failure = timed(() -> catchThrowable(source::listTools));
    assertThat(failure.value())
        .hasMessage("MCP server 'test' cannot be reached at " + url + ": " + why)
        .hasMessageNotContaining("Did not observe");
    assertThat(failure.took()).isLessThan(Duration.ofSeconds(20));
  }

  private static JsonNode cityArgument(String city) {
    return JSON.createObjectNode().put("city", city);
  }

  private static McpServerOptions.Builder stdio(String... mode) {
    List<String> command = McpServerProcess.command(mode);
    return McpServerOptions.newBuilder("test")
        .setCommand(command.get(0), command.subList(1, command.size()))
        .setConnectTimeout(PATIENT);
  }

  private static McpServerOptions.Builder http(String url) {
    return McpServerOptions.newBuilder("test").setUrl(URI.create(url)).setConnectTimeout(PATIENT);
  }

  /** What the code logs while {@code work} runs (slf4j-simple writes to the System.err of then). */
  private static String stderrOf(Callable<?> work) throws Exception {
    PrintStream stderr = System.err;
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8));
    try {
      work.call();
    } finally {
      System.setErr(stderr);
    }
    String text = logged.toString(StandardCharsets.UTF_8);
    stderr.print(text);
    return text;
  }

  private record Timed<T>(T value, Duration took) {}

  private static <T> Timed<T> timed(Callable<T> work) {
    long start = System.nanoTime();
    try {
      T value = work.call();
      return new Timed<>(value, Duration.ofNanos(System.nanoTime() - start));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
