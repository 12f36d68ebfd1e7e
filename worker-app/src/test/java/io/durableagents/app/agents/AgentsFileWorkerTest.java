package io.durableagents.app.agents;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.app.AgentWorker;
import io.durableagents.app.EmbeddedTemporalServer;
import io.durableagents.app.WorkerConfig;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.SendOptions;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.ToolCallRecord;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A worker started with an agents file runs sessions with the file's agents, on a real server. */
class AgentsFileWorkerTest {
  private static final String TASK_QUEUE = "agents-file";

  @TempDir Path dir;

  private WorkerConfig config(String address, String modelSpec, AgentsFile agents) {
    return new WorkerConfig(
            address,
            WorkerConfig.DEFAULT_NAMESPACE,
            TASK_QUEUE,
            "jdbc:sqlite:" + dir.resolve("projection.db"),
            modelSpec)
        .withAgents(agents);
  }

  private static AgentClient client(AgentWorker worker) {
    return AgentClient.newInstance(
        worker.client(), AgentClientOptions.newBuilder().setTaskQueue(TASK_QUEUE).build());
  }

  @Test
  void sessions_getTheFilesInstructionsModelAndTools_defaultAgentFirst() {
    AgentsFile file =
        AgentsFile.parse(
            "agents.yaml",
            """
            defaultAgent: weather
            agents:
              - name: planner
                model: planner-model
                instructions: Plan trips.
                tools: [find_restaurant, book_table]
              - name: weather
                model: weather-model
                instructions: Only weather.
                tools: [get_weather]
            """,
            ToolCatalog.demo());
    try (EmbeddedTemporalServer server = EmbeddedTemporalServer.start(0);
        AgentWorker worker = AgentWorker.start(config(server.address(), "echo-agent:", file))) {
      AgentClient agents = client(worker);

      RunResult byDefault = agents.send("chat-default", "hello");
      RunResult planner =
          agents.send(
              "chat-planner", "hello", SendOptions.newBuilder().setAgent("planner").build());

      assertThat(byDefault.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(byDefault.text())
          .isEqualTo(
              "agent=weather model=weather-model instructions=Only weather. tools=get_weather");
      assertThat(planner.text())
          .isEqualTo(
              "agent=planner model=planner-model instructions=Plan trips."
                  + " tools=find_restaurant,book_table");
    }
  }

  @Test
  void aToolsApprovalFromTheFile_replacesTheCatalogs() {
    // The demo script calls get_weather and find_restaurant, then book_table, which the catalog
    // gates behind an approval; the file says never, so the run books without waiting.
    AgentsFile file =
        AgentsFile.parse(
            "agents.yaml",
            """
            agents:
              - name: concierge
                tools:
                  - get_weather
                  - find_restaurant
                  - name: book_table
                    approval: never
            """,
            ToolCatalog.demo());
    try (EmbeddedTemporalServer server = EmbeddedTemporalServer.start(0);
        AgentWorker worker = AgentWorker.start(config(server.address(), null, file))) {
      RunResult result = client(worker).send("dinner", "Book me a table in Paris tonight.");

      assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(result.approval()).isNull();
      assertThat(result.toolCalls())
          .extracting(ToolCallRecord::name)
          .containsExactly("get_weather", "find_restaurant", "book_table");
      assertThat(result.toolCalls().get(2).result().path("confirmation").asText())
          .startsWith("BK-");
    }
  }
}
