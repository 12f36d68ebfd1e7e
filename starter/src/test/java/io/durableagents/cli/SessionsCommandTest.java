package io.durableagents.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionsCommandTest {

  @Test
  void anUnknownStatus_isAUsageError_beforeTemporalIsContacted() {
    // Nothing listens on port 1: a connection attempt would fail with exit code 1, not 2.
    CliHarness.Outcome outcome =
        CliHarness.run("sessions", "--status", "paused", "--temporal", "127.0.0.1:1");

    assertThat(outcome.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(outcome.err())
        .contains("Unknown status 'paused'")
        .contains("running, queued, awaiting-approval, finished, failed, cancelled");
    assertThat(outcome.out()).isEmpty();
  }

  @Test
  void theQuery_namesOpenSessionWorkflows_andQuotesTheFilters() {
    assertThat(SessionsCommand.query(null, null))
        .isEqualTo("WorkflowType = 'AgentSession' AND ExecutionStatus = 'Running'");
    assertThat(SessionsCommand.query("awaiting-approval", "o'brien"))
        .isEqualTo(
            "WorkflowType = 'AgentSession' AND ExecutionStatus = 'Running'"
                + " AND AgentStatus = 'awaiting-approval' AND AgentName = 'o\\'brien'");
  }

  @Test
  void theTable_showsADashForAttributesASessionDoesNotHave() {
    StringWriter text = new StringWriter();
    SessionsCommand.print(
        List.of(
            new SessionsCommand.Listed(
                "chat-1.fork-1",
                "concierge",
                "awaiting-approval",
                1L,
                "chat-1",
                "2025-01-02T03:04:05Z"),
            new SessionsCommand.Listed("old", null, null, null, null, "2025-01-01T00:00:00Z")),
        new PrintWriter(text));

    List<String> lines = text.toString().lines().toList();
    assertThat(lines.get(0))
        .startsWith("SESSION")
        .contains("AGENT", "STATUS", "PENDING", "PARENT", "STARTED (UTC)");
    assertThat(lines.get(1).split("\\s+"))
        .containsExactly(
            "chat-1.fork-1",
            "concierge",
            "awaiting-approval",
            "1",
            "chat-1",
            "2025-01-02",
            "03:04:05");
    assertThat(lines.get(2).split("\\s+"))
        .containsExactly("old", "-", "-", "-", "-", "2025-01-01", "00:00:00");
  }
}
