package io.durableagents.cli;

import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientException;
import io.durableagents.client.SessionAwaitingApprovalException;
import io.durableagents.session.Approval;
import java.util.Objects;

/**
 * The refusal of {@code close}, {@code delete} or {@code reset} while the session waits for an
 * approval, in this CLI's terms: the session's own refusal names no command, so this one names the
 * decisions and the command that was run with its {@code --force}.
 */
final class PendingApprovalRefusal {
  private PendingApprovalRefusal() {}

  /**
   * The refusal of {@code command} (as the user would run it again, e.g. {@code agents delete S})
   * for {@code refused}, exit code 3. The tool is read from the session's status; left out when it
   * cannot be read.
   */
  static CliException of(
      SessionAwaitingApprovalException refused, String command, AgentClient agents) {
    String session = refused.sessionId();
    String approvalId = refused.approvalId();
    if (approvalId == null) {
      return new CliException(
          ExitCodes.AWAITING_APPROVAL,
          "Session '"
              + session
              + "' is awaiting an approval; decide it first ('agents approvals'), or run '"
              + command
              + " --force', which cancels the run and settles the approval as cancelled.",
          refused);
    }
    String tool = toolOf(agents, session, approvalId);
    return new CliException(
        ExitCodes.AWAITING_APPROVAL,
        "Session '"
            + session
            + "' is awaiting approval "
            + approvalId
            + (tool == null ? "" : " for tool '" + tool + "'")
            + "; decide it first ('agents approve "
            + session
            + " "
            + approvalId
            + "' or 'agents reject "
            + session
            + " "
            + approvalId
            + "'), or run '"
            + command
            + " --force', which cancels the run and settles the approval as cancelled.",
        refused);
  }

  private static String toolOf(AgentClient agents, String session, String approvalId) {
    try {
      return agents
          .status(session)
          .map(s -> s.approval())
          .filter(a -> Objects.equals(a.approvalId(), approvalId))
          .map(Approval::toolName)
          .orElse(null);
    } catch (AgentClientException e) {
      return null; // the refusal stands without the tool's name
    }
  }
}
