package io.durableagents.app.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.app.AgentWorker;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.testing.AgentsProcesses;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.mcp.McpServerProcess;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.ToolCallRecord;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agents file's MCP servers on the real dev server, with the worker app as a process: an agent
 * calls a tool of a stdio server (a process its worker starts) and one of a streamable HTTP server;
 * both servers are killed between two runs (the HTTP one restarted on its port) and the next run
 * reaches both again; {@code agents history} shows the calls.
 */
class McpToolsIT {
  private static final String TASK_QUEUE = "mcp-tools";
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(90);
  private static final String SCRIPT =
      """
      {"turns": [
        {"toolCalls": [{"name": "forecast", "arguments": {"city": "Oslo"}}]},
        {"toolCalls": [{"name": "echo_meta", "arguments": {"text": "first"}}]},
        {"text": "Sunny in Oslo."},
        {"toolCalls": [{"name": "forecast", "arguments": {"city": "Rome"}}]},
        {"toolCalls": [{"name": "echo_meta", "arguments": {"text": "second"}}]},
        {"text": "Sunny in Rome."}
      ]}
      """;

  @TempDir Path dir;

  @Test
  void anAgentCallsToolsOfAStdioAndAnHttpServer_andReachesBothAgainAfterTheyRestart()
      throws Exception {
    String projection = "jdbc:sqlite:" + dir.resolve("projection.db");
    McpServerProcess http = McpServerProcess.http(0);
    try (TemporalDevServer server = RealTemporal.start(dir);
        AgentsProcesses processes = new AgentsProcesses(dir)) {
      Path agentsFile = Files.writeString(dir.resolve("agents.yaml"), agentsFile(http.url()));
      Path script = Files.writeString(dir.resolve("script.json"), SCRIPT);
      processes.startAndAwait(
          "worker polling task queue '" + TASK_QUEUE + "'",
          "worker",
          "--temporal",
          server.address(),
          "--task-queue",
          TASK_QUEUE,
          "--projection",
          projection,
          "--agents",
          agentsFile.toString(),
          "--model",
          "scripted:" + script);
      WorkflowServiceStubs service = AgentWorker.connect(server.address());
      try {
        AgentClient agents =
            AgentClient.newInstance(
                WorkflowClient.newInstance(service),
                AgentClientOptions.newBuilder().setTaskQueue(TASK_QUEUE).build());

        RunResult first = agents.send("mcp-1", "Weather in Oslo?");

        assertThat(first.status()).as(first.toString()).isEqualTo(RunStatus.FINISHED);
        assertThat(first.text()).isEqualTo("Sunny in Oslo.");
        JsonNode forecast = result(first, "forecast");
        assertThat(forecast.at("/structuredContent/forecast").asText()).isEqualTo("sunny");
        long stdioPid = forecast.at("/structuredContent/pid").asLong();
        assertThat(processes.process("worker").descendants().map(ProcessHandle::pid))
            .as("the stdio server is a process the worker started")
            .contains(stdioPid);
        JsonNode echoed = result(first, "echo_meta");
        assertThat(echoed.at("/structuredContent/text").asText()).isEqualTo("first");
        String firstKey = echoed.at("/structuredContent/idempotencyKey").asText();
        assertThat(firstKey)
            .as("the call's idempotency key reaches the server in _meta")
            .matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

        ProcessHandle stdio = ProcessHandle.of(stdioPid).orElseThrow();
        stdio.destroyForcibly();
        stdio.onExit().get(10, TimeUnit.SECONDS);
        http.kill();
        http = McpServerProcess.http(http.port());

        RunResult second = agents.send("mcp-1", "And in Rome?");

        assertThat(second.status()).as(second.toString()).isEqualTo(RunStatus.FINISHED);
        assertThat(second.text()).isEqualTo("Sunny in Rome.");
        JsonNode again = result(second, "forecast");
        assertThat(again.at("/structuredContent/city").asText()).isEqualTo("Rome");
        assertThat(again.at("/structuredContent/pid").asLong())
            .as("a new stdio server process")
            .isNotEqualTo(stdioPid);
        JsonNode echoedAgain = result(second, "echo_meta");
        assertThat(echoedAgain.at("/structuredContent/text").asText()).isEqualTo("second");
        assertThat(echoedAgain.at("/structuredContent/idempotencyKey").asText())
            .as("each call has a key of its own")
            .isNotBlank()
            .isNotEqualTo(firstKey);

        AgentsProcesses.Result history =
            processes.run(COMMAND_TIMEOUT, "history", "mcp-1", "--projection", projection);
        assertThat(history.exitCode()).as(history.err()).isZero();
        assertThat(history.out()).contains("forecast").contains("echo_meta");
      } finally {
        service.shutdownNow();
      }
    } finally {
      http.close();
    }
  }

  private static String agentsFile(String httpUrl) {
    List<String> command = McpServerProcess.command("stdio");
    String args =
        command.subList(1, command.size()).stream()
            .map(arg -> "\"" + arg.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
            .collect(Collectors.joining(", "));
    return """
        mcpServers:
          weather:
            command: "%s"
            args: [%s]
          notes:
            url: "%s"
        agents:
          - name: concierge
            instructions: You answer with the weather.
            mcpServers:
              - server: weather
                tools: [forecast]
              - server: notes
                tools: [echo_meta]
        """
        .formatted(command.get(0), args, httpUrl);
  }

  private static JsonNode result(RunResult run, String tool) {
    return run.toolCalls().stream()
        .filter(call -> call.name().equals(tool))
        .map(ToolCallRecord::result)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no call of " + tool + " in " + run));
  }
}
