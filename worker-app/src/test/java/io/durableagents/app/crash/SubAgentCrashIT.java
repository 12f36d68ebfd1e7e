package io.durableagents.app.crash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.app.AgentWorker;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.testing.AgentsProcesses;
import io.durableagents.app.testing.ExampleAgents;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.ApprovalRow;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SessionRow;
import io.durableagents.session.ApprovalStatus;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.DecisionOutcome;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.ToolCallRecord;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A parent agent waits on its sub-agent's approval across a SIGKILL of the only worker, on the real
 * dev server, with the worker app as a process serving the shipped example's agents (the demo
 * scripts, the demo MCP server as the weather agent's stdio tool server): the approval surfaces on
 * the parent, is decided through the parent after a new worker took over, and the parent finishes
 * with the sub-agent's answer; the sub-agent's MCP call ran once.
 */
class SubAgentCrashIT {
  private static final String TASK_QUEUE = "sub-agent-crash";
  private static final String PARENT = "trip-crash";

  @TempDir Path dir;

  @Test
  void aParentWaitingOnItsSubAgentsApproval_survivesAWorkerKill_andFinishesWithItsAnswer()
      throws Exception {
    String projection = "jdbc:sqlite:" + dir.resolve("projection.db");
    Path agentsFile = ExampleAgents.write(dir);
    try (TemporalDevServer server = RealTemporal.start(dir);
        AgentsProcesses processes = new AgentsProcesses(dir);
        ProjectionReader reader = ProjectionReader.open(projection)) {
      String[] worker = {
        "worker",
        "--temporal",
        server.address(),
        "--task-queue",
        TASK_QUEUE,
        "--projection",
        projection,
        "--agents",
        agentsFile.toString()
      };
      processes.startAndAwait("worker polling task queue '" + TASK_QUEUE + "'", worker);
      WorkflowServiceStubs service = AgentWorker.connect(server.address());
      try {
        AgentClient agents =
            AgentClient.newInstance(
                WorkflowClient.newInstance(service),
                AgentClientOptions.newBuilder().setTaskQueue(TASK_QUEUE).build());

        RunResult paused = agents.send(PARENT, "Book dinner in Paris tonight");

        assertThat(paused.status()).as(paused.toString()).isEqualTo(RunStatus.AWAITING_APPROVAL);
        assertThat(paused.approval().toolName()).isEqualTo("forecast");
        String child = paused.approval().sessionId();
        assertThat(child).startsWith(PARENT + ":sub:");
        String approvalId = paused.approval().approvalId();
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () ->
                    assertThat(reader.approvals(PARENT, true))
                        .as("the parent's inbox holds the sub-agent's approval")
                        .singleElement()
                        .satisfies(
                            row -> {
                              assertThat(row.sessionId()).isEqualTo(child);
                              assertThat(row.parentSessionId()).isEqualTo(PARENT);
                              assertThat(row.approvalId()).isEqualTo(approvalId);
                            }));

        Process killed = processes.process("worker");
        List<ProcessHandle> mcpServers = killed.descendants().toList();
        killed.destroyForcibly();
        killed.onExit().get(30, TimeUnit.SECONDS);
        for (ProcessHandle mcp : mcpServers) {
          // The stdio server lives as long as the worker that started it.
          mcp.onExit().get(30, TimeUnit.SECONDS);
        }
        processes.startAndAwait("worker polling task queue '" + TASK_QUEUE + "'", worker);

        SessionStatus waiting = agents.status(PARENT).orElseThrow();
        assertThat(waiting.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
        assertThat(waiting.approval().approvalId()).isEqualTo(approvalId);
        DecisionOutcome outcome = agents.approve(PARENT, approvalId);
        assertThat(outcome.outcome()).isEqualTo(ApprovalStatus.APPROVED);

        RunResult booking = agents.awaitRun(PARENT);
        assertThat(booking.status()).as(booking.toString()).isEqualTo(RunStatus.AWAITING_APPROVAL);
        assertThat(booking.approval().toolName()).isEqualTo("book_table");
        assertThat(booking.approval().sessionId()).as("the parent's own approval").isNull();
        JsonNode answer = result(booking, "weather");
        assertThat(answer.get("sessionId").asText()).isEqualTo(child);
        assertThat(answer.get("text").asText()).isEqualTo("Tonight in Paris: sunny, about 21°C.");

        agents.approve(PARENT, booking.approval().approvalId());
        RunResult done = agents.awaitRun(PARENT);

        assertThat(done.status()).as(done.toString()).isEqualTo(RunStatus.FINISHED);
        assertThat(done.text()).contains("Le Petit Zinc");
        SessionRow childRow = reader.session(child).orElseThrow();
        assertThat(childRow.agent()).isEqualTo("weather");
        assertThat(childRow.status()).isEqualTo(RunStatus.FINISHED);
        assertThat(childRow.parentSessionId()).isEqualTo(PARENT);
        assertThat(childRow.parentCallId()).isEqualTo("call_0_0");
        assertThat(reader.subAgents(PARENT))
            .extracting(SessionRow::sessionId)
            .containsExactly(child);
        List<JsonNode> forecasts =
            reader.messages(child, childRow.messageCount()).stream()
                .filter(m -> "forecast".equals(m.toolName()))
                .map(m -> m.result())
                .toList();
        assertThat(forecasts)
            .as("the sub-agent's MCP call ran once, after the decision")
            .singleElement()
            .satisfies(
                r -> assertThat(r.at("/structuredContent/source").asText()).isEqualTo("mcp"));
        assertThat(reader.approvals(PARENT, false))
            .extracting(ApprovalRow::status)
            .containsOnly(ApprovalStatus.APPROVED);
      } finally {
        service.shutdownNow();
      }
    }
  }

  private static JsonNode result(RunResult run, String tool) {
    return run.toolCalls().stream()
        .filter(call -> call.name().equals(tool))
        .map(ToolCallRecord::result)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no call of " + tool + " in " + run));
  }
}
