package io.durableagents.cli;

import io.durableagents.client.AgentClientException;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SessionNotFoundException;
import io.durableagents.client.SessionRow;
import io.durableagents.session.RunStatus;
import io.durableagents.session.SessionLifecycle;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionStatus;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code agents status SESSION}: where a session is, from Temporal; its last run's messages come
 * from the projection ({@code --projection}), as {@code send} shows them, and a projection that
 * cannot be read is a warning. Exit code 0, 3 when it waits for an approval, 4 when there is no
 * such session.
 */
@Command(
    name = "status",
    description = {
      "Show where a session is: its state, runs, usage and last result.",
      "The last run's messages (--json) come from the projection, like send's."
    },
    footer = {"", "Exit codes: 0 ok, 1 error, 2 usage, 3 awaiting approval, 4 no such session."})
public class StatusCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Parameters(index = "0", paramLabel = "SESSION", description = "Session id.")
  String session;

  @Option(names = "--json", description = "Print the status as one JSON document.")
  boolean json;

  @Override
  public Integer call() {
    SendCommand.requireValidSession(session);
    SessionStatus status;
    List<String> lineage;
    try (ConnectionOptions.Connection connected = connection.open()) {
      status =
          withMessages(
              connected
                  .agents()
                  .status(session)
                  .orElseThrow(() -> new SessionNotFoundException(session)),
              connected.projection());
      lineage = json ? List.of() : subAgentLines(connected.projection());
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      RunResultPrinter.printJson(status, out);
    } else {
      print(status, out);
      lineage.forEach(out::println);
    }
    return ExitCodes.forStatus(status.status());
  }

  /**
   * The status with its last run's messages from the projection (the status query leaves them out),
   * or as it is, with a warning, when the projection cannot be read.
   */
  private SessionStatus withMessages(SessionStatus status, ProjectionReader projection) {
    RunResult last = status.lastResult();
    if (last == null || projection == null) {
      return status;
    }
    try {
      RunResult complete =
          last.withMessages(projection.messages(status.sessionId(), last.messageCount()));
      return status.toBuilder().setLastResult(complete).build();
    } catch (AgentClientException e) {
      connection.warnMessagesLeftOut(e);
      return status;
    }
  }

  /**
   * The session's place among sub-agent sessions, from the projection: its parent and the call it
   * answers, and the sub-agent sessions of its runs. None when the projection cannot be read.
   */
  private List<String> subAgentLines(ProjectionReader projection) {
    if (projection == null) {
      return List.of();
    }
    List<String> lines = new ArrayList<>();
    try {
      projection
          .session(session)
          .filter(row -> row.parentCallId() != null)
          .ifPresent(
              row ->
                  lines.add(
                      "  sub-agent session of "
                          + RunResultPrinter.printable(row.parentSessionId())
                          + " (its call "
                          + RunResultPrinter.printable(row.parentCallId())
                          + ")"));
      for (SessionRow child : projection.subAgents(session)) {
        lines.add(
            "  sub-agent session "
                + RunResultPrinter.printable(child.sessionId())
                + " (agent "
                + RunResultPrinter.printable(child.agent())
                + ", call "
                + RunResultPrinter.printable(child.parentCallId())
                + "): "
                + child.status());
      }
    } catch (AgentClientException e) {
      // The lineage is extra: the status stands without it.
    }
    return lines;
  }

  static void print(SessionStatus status, PrintWriter out) {
    StringBuilder head = new StringBuilder(RunResultPrinter.printable(status.sessionId()));
    if (status.agent() != null) {
      head.append(" (agent ").append(RunResultPrinter.printable(status.agent())).append(')');
    }
    head.append(": ").append(RunResultPrinter.printable(String.valueOf(status.status())));
    if (status.lifecycle() != SessionLifecycle.OPEN) {
      // closing: the run in progress finishes first; closed: a send starts it again.
      head.append(" · ").append(status.lifecycle());
    }
    if (status.resetTo() != null) {
      // Its entries after that step are kept in the history, marked superseded.
      head.append(" · reset to step ").append(status.resetTo());
    }
    out.println(head);
    out.println(
        "  "
            + RunResultPrinter.plural(status.run(), "run")
            + " · "
            + RunResultPrinter.plural(status.messageCount(), "message")
            + " · checkpoint step "
            + status.checkpointStep()
            + " · "
            + RunResultPrinter.usage(status.usage()));
    if (RunStatus.QUEUED.equals(status.status()) && status.concurrencyKey() != null) {
      out.println(
          "  waiting for concurrency key '"
              + RunResultPrinter.printable(status.concurrencyKey())
              + "'"
              + (status.queuePlace() == null ? "" : " at place " + status.queuePlace())
              + " (1: next to run)");
    } else if (status.concurrencyKey() != null) {
      out.println("  concurrency key: " + RunResultPrinter.printable(status.concurrencyKey()));
    }
    if (status.businessState() != null) {
      out.println(
          "  business state: "
              + RunResultPrinter.compactJson(status.businessState(), Integer.MAX_VALUE));
    }
    boolean lastRunShowsApproval =
        status.lastResult() != null
            && RunStatus.AWAITING_APPROVAL.equals(status.lastResult().status());
    if (status.approval() != null && !lastRunShowsApproval) {
      RunResultPrinter.printApproval(status.sessionId(), status.approval(), out);
    }
    if (status.lastResult() != null) {
      out.println();
      out.println("Last run:");
      RunResultPrinter.printHuman(status.lastResult(), out);
    }
    out.flush();
  }
}
