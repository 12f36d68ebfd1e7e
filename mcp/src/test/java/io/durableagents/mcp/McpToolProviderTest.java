package io.durableagents.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.agent.Agent;
import io.durableagents.agent.ToolProviderUnavailableException;
import io.durableagents.tools.ApprovalPolicy;
import io.durableagents.tools.RetryableToolException;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolCancellation;
import io.durableagents.tools.ToolContext;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tools of real MCP server processes (the SDK's, from the test tree) over stdio and HTTP. */
class McpToolProviderTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private McpToolProvider source;

  @AfterEach
  void closeSource() {
    if (source != null) {
      source.close();
    }
  }

  @Test
  void aStdioServer_listsItsValidTools_andTakesTheCallsIdempotencyKeyInMeta() throws Exception {
    source = McpToolProvider.of(stdio().setApprovalPolicy("slow", ApprovalPolicy.ALWAYS).build());

    List<Tool> tools = source.listTools();

    assertThat(tools)
        .extracting(Tool::name)
        .as("bad_schema is left out")
        .containsExactlyInAnyOrder("broken", "content", "echo_meta", "forecast", "slow");
    Tool echo = tool(tools, "echo_meta");
    assertThat(echo.inputSchema().at("/properties/text/type").asText()).isEqualTo("string");
    assertThat(tool(tools, "slow").needsApproval(JSON.createObjectNode())).isTrue();
    assertThat(echo.needsApproval(JSON.createObjectNode())).isFalse();

    JsonNode result = call(echo, "{\"text\": \"hi\"}", "session-1/run-1/call-7");
    assertThat(result.get("structuredContent"))
        .isEqualTo(
            JSON.readTree("{\"text\": \"hi\", \"idempotencyKey\": \"session-1/run-1/call-7\"}"));
  }

  @Test
  void aToolTheServerMarksAsFailed_givesItsContent_withIsError() throws Exception {
    source = McpToolProvider.of(stdio().build());

    JsonNode result = call(tool(source.listTools(), "broken"), "{}", "k");

    assertThat(result.get("isError").asBoolean()).isTrue();
    assertThat(result.at("/content/0/text").asText()).isEqualTo("the umbrella shop is closed");
  }

  @Test
  void aStdioServerThatDies_failsTheCallInFlightRetryably_andTheNextCallStartsItAgain()
      throws Exception {
    source = McpToolProvider.of(stdio().build());
    List<Tool> tools = source.listTools();
    Tool forecast = tool(tools, "forecast");
    long firstPid =
        call(forecast, "{\"city\": \"Oslo\"}", "k1").at("/structuredContent/pid").asLong();
    Path started = dir.resolve("slow-started");
    CompletableFuture<JsonNode> inFlight =
        CompletableFuture.supplyAsync(
            () -> callUnchecked(tool(tools, "slow"), slowArguments(started)));
    awaitStarted(started);

    ProcessHandle first = ProcessHandle.of(firstPid).orElseThrow();
    first.destroyForcibly();
    first.onExit().get(10, TimeUnit.SECONDS);

    assertThatThrownBy(() -> inFlight.get(10, TimeUnit.SECONDS))
        .as("the call in flight fails well before its 30 s")
        .hasCauseInstanceOf(RetryableToolException.class)
        .hasMessageContaining("MCP server 'test' did not answer the call")
        .hasMessageContaining("the process exited with code 137");
    JsonNode again = call(forecast, "{\"city\": \"Oslo\"}", "k2");
    assertThat(again.at("/structuredContent/forecast").asText()).isEqualTo("sunny");
    assertThat(again.at("/structuredContent/pid").asLong()).isNotEqualTo(firstPid);
  }

  @Test
  void aCancelledCall_stopsWaitingForTheServer_atOnce() throws Exception {
    source = McpToolProvider.of(stdio().build());
    Tool slow = tool(source.listTools(), "slow");
    ToolCancellation cancellation = new ToolCancellation();
    ToolContext context =
        ToolContext.newBuilder()
            .setToolCallId("call-1")
            .setSessionId("s")
            .setIdempotencyKey("k")
            .setCancellation(cancellation)
            .build();
    CompletableFuture<Object> call = new CompletableFuture<>();
    Path started = dir.resolve("slow-started");
    Thread handler =
        new Thread(
            () -> {
              try {
                call.complete(
                    slow.handler().execute(JSON.readTree(slowArguments(started)), context));
              } catch (Exception e) {
                call.completeExceptionally(e);
              }
            });
    handler.start();
    awaitStarted(started);

    long cancelledAt = System.nanoTime();
    // What the tool activity does on a cancel: the cancellation fires, the thread is interrupted.
    cancellation.cancel(ToolCancellation.Reason.RUN_CANCELLED);
    handler.interrupt();

    assertThatThrownBy(() -> call.get(5, TimeUnit.SECONDS))
        .as("the handler gave up waiting for the 30 s call")
        .isInstanceOf(java.util.concurrent.ExecutionException.class)
        .cause()
        .isNotInstanceOf(RetryableToolException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - cancelledAt)).isLessThan(Duration.ofSeconds(2));
    assertThat(call(tool(source.listTools(), "forecast"), "{\"city\": \"Oslo\"}", "k2"))
        .as("the connection still serves the next call")
        .isNotNull();
  }

  @Test
  void anHttpServer_servesCalls_andIsReachedAgainAfterItRestarts() throws Exception {
    McpServerProcess server = McpServerProcess.http(0);
    try {
      source =
          McpToolProvider.of(
              McpServerOptions.newBuilder("test")
                  .setUrl(URI.create(server.url()))
                  .setTools(List.of("forecast", "echo_meta"))
                  .build());
      List<Tool> tools = source.listTools();
      assertThat(tools).extracting(Tool::name).containsExactlyInAnyOrder("forecast", "echo_meta");
      Tool forecast = tool(tools, "forecast");
      assertThat(
              call(forecast, "{\"city\": \"Rome\"}", "k1").at("/structuredContent/city").asText())
          .isEqualTo("Rome");

      server.kill();
      assertThatThrownBy(() -> call(forecast, "{\"city\": \"Rome\"}", "k2"))
          .isInstanceOf(RetryableToolException.class)
          .hasMessageContaining("MCP server 'test'");
      server = McpServerProcess.http(server.port());

      JsonNode again = call(forecast, "{\"city\": \"Rome\"}", "k2");
      assertThat(again.at("/structuredContent/forecast").asText()).isEqualTo("sunny");
      assertThat(call(tool(tools, "echo_meta"), "{\"text\": \"x\"}", "k3"))
          .isEqualTo(
              JSON.readTree(
                  "{\"structuredContent\": {\"text\": \"x\", \"idempotencyKey\": \"k3\"}}"));
    } finally {
      source.close();
      server.close();
    }
  }

  @Test
  void aServerThatCannotStart_failsTheRunsStart_namingIt_unlessItIsOptional() {
    McpServerOptions missing =
        McpServerOptions.newBuilder("ghost")
            .setCommand("/nonexistent/mcp-server", List.of())
            .build();
    source = McpToolProvider.of(missing);
    Agent agent = Agent.newBuilder("a").addToolProvider(source).build();

    assertThatThrownBy(agent::listToolProviders)
        .isInstanceOf(ToolProviderUnavailableException.class)
        .hasMessageContaining("MCP server 'ghost'")
        .hasMessageContaining("cannot be started");

    McpToolProvider optional =
        McpToolProvider.of(
            McpServerOptions.newBuilder("ghost")
                .setCommand("/nonexistent/mcp-server", List.of())
                .setOptional(true)
                .build());
    Agent tolerant = Agent.newBuilder("a").addToolProvider(optional).build();
    tolerant.listToolProviders();
    assertThat(tolerant.tools()).isEmpty();
    optional.close();
  }

  @Test
  void anAgentTakesTheServersTools_afterItsOwn_andLeavesOutANameItHas() throws Exception {
    source = McpToolProvider.of(stdio().build());
    Tool ownForecast =
        Tool.newBuilder("forecast").setHandler((arguments, context) -> "own").build();
    Agent agent = Agent.newBuilder("a").setTools(ownForecast).addToolProvider(source).build();

    agent.listToolProviders();

    assertThat(agent.tools())
        .extracting(Tool::name)
        .containsExactly("forecast", "broken", "content", "echo_meta", "slow");
    assertThat(agent.tool("forecast")).isSameAs(ownForecast);
    assertThat(agent.tool("echo_meta")).isNotNull();
  }

  private static JsonNode callUnchecked(Tool tool, String arguments) {
    try {
      return call(tool, arguments, "k");
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static McpServerOptions.Builder stdio() {
    List<String> command = McpServerProcess.command("stdio");
    return McpServerOptions.newBuilder("test")
        .setCommand(command.get(0), command.subList(1, command.size()));
  }

  /** A 30 s call of {@code slow} that creates {@code started} once the server runs it. */
  private static String slowArguments(Path started) {
    return JSON.createObjectNode()
        .put("seconds", 30)
        .put("startedFile", started.toString())
        .toString();
  }

  private static void awaitStarted(Path started) {
    await("the slow call reached the server")
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> Files.exists(started));
  }

  private static Tool tool(List<Tool> tools, String name) {
    return tools.stream().filter(tool -> tool.name().equals(name)).findFirst().orElseThrow();
  }

  private static JsonNode call(Tool tool, String arguments, String idempotencyKey)
      throws Exception {
    ToolContext context =
        ToolContext.newBuilder()
            .setToolCallId("call-1")
            .setSessionId("s")
            .setIdempotencyKey(idempotencyKey)
            .build();
    return (JsonNode) tool.handler().execute(JSON.readTree(arguments), context);
  }
}
