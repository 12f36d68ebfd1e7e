package io.durableagents.app.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.app.AgentWorker;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.WorkerConfig;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.DecisionOptions;
import io.durableagents.session.RunStatus;
import io.durableagents.testing.ConciergeAgent;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.ToolCallRecord;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's {@code book_table} on the real Temporal server: the scripted model gives the call the
 * same id in every session, and each session still makes its own booking.
 */
class ConciergeBookingsIT {
  private static final String TASK_QUEUE = "concierge-bookings";

  @TempDir Path dir;

  @Test
  void twoSessionsBookingWithTheSameScriptedCallId_makeTwoBookings() {
    WorkerConfig config =
        new WorkerConfig(
            "127.0.0.1:7233",
            "default",
            TASK_QUEUE,
            "jdbc:sqlite:" + dir.resolve("projection.db"),
            null);
    try (TemporalDevServer server = RealTemporal.start(dir);
        AgentWorker worker = AgentWorker.start(config.withTemporalAddress(server.address()))) {
      AgentClient agents =
          AgentClient.newInstance(
              worker.client(), AgentClientOptions.newBuilder().setTaskQueue(TASK_QUEUE).build());
      int before = ConciergeAgent.bookingCount();

      ToolCallRecord first = book(agents, "dinner-ann");
      ToolCallRecord second = book(agents, "dinner-bob");

      assertThat(first.id()).isEqualTo(second.id());
      assertThat(first.result().path("confirmation").asText()).startsWith("BK-");
      assertThat(second.result().path("confirmation").asText())
          .startsWith("BK-")
          .isNotEqualTo(first.result().path("confirmation").asText());
      assertThat(ConciergeAgent.bookingCount() - before).isEqualTo(2);
      // Each session's business state holds its own booking.
      assertThat(
              agents
                  .status("dinner-bob")
                  .orElseThrow()
                  .businessState()
                  .path("bookings")
                  .has(second.result().path("confirmation").asText()))
          .isTrue();
    }
  }

  /** Sends the demo's request to {@code sessionId}, approves the booking, returns its call. */
  private static ToolCallRecord book(AgentClient agents, String sessionId) {
    RunResult paused = agents.send(sessionId, "Find me a table for two in Paris tonight.");
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    assertThat(paused.approval().toolName()).isEqualTo("book_table");
    agents.approve(
        sessionId,
        paused.approval().approvalId(),
        DecisionOptions.newBuilder().setDecidedBy("host").build());
    RunResult done = agents.awaitRun(sessionId);
    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    return done.toolCalls().stream()
        .filter(c -> c.name().equals("book_table"))
        .findFirst()
        .orElseThrow();
  }
}
