package io.durableagents.cli;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.durableagents.workflow.SessionSearchAttributes;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.common.SearchAttributes;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code agents sessions}: the open sessions of the namespace, newest first, from Temporal's
 * visibility (the search attributes the sessions upsert), so it needs no projection.
 */
@Command(
    name = "sessions",
    description = {
      "List the namespace's open sessions, newest first, from Temporal's visibility: agent, status,",
      "pending approvals and the session a fork was taken from. Needs no projection."
    },
    footer = {
      "",
      "Filtering by status or agent needs the search attributes registered on the namespace;",
      "without them the columns are '-'. Exit codes: 0 ok, 1 error, 2 usage."
    })
public class SessionsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Option(
      names = "--status",
      paramLabel = "STATUS",
      description =
          "Only sessions in this status: running, awaiting-approval, finished, failed or cancelled.")
  String status;

  @Option(names = "--agent", paramLabel = "AGENT", description = "Only sessions of this agent.")
  String agent;

  @Option(
      names = "--limit",
      paramLabel = "N",
      defaultValue = "100",
      description = "List at most N sessions (default: ${DEFAULT-VALUE}).")
  int limit;

  @Option(names = "--json", description = "Print the sessions as one JSON array.")
  boolean json;

  /** One session as visibility sees it; absent attributes are null. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Listed(
      String sessionId,
      String agent,
      String status,
      Long pendingApprovals,
      String parentSession,
      String startTime) {}

  @Override
  public Integer call() {
    if (status != null && !SessionSearchAttributes.STATUSES.contains(status)) {
      throw new ParameterException(
          spec.commandLine(),
          "Unknown status '"
              + Shown.value(status)
              + "': expected one of "
              + String.join(", ", SessionSearchAttributes.STATUSES)
              + ".");
    }
    if (limit < 1) {
      throw new ParameterException(
          spec.commandLine(), "--limit must be at least 1, got " + limit + ".");
    }
    String query = query(status, agent);
    List<Listed> sessions;
    try (ConnectionOptions.Connection connected = connection.open(false)) {
      sessions = list(connected.workflowClient(), query, limit);
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      RunResultPrinter.printJson(sessions, out);
    } else {
      print(sessions, out);
    }
    return ExitCodes.OK;
  }

  /** The visibility query: open session workflows, with the given attribute values. */
  static String query(String status, String agent) {
    StringBuilder query =
        new StringBuilder("WorkflowType = ")
            .append(quoted(AgentSessionWorkflow.WORKFLOW_TYPE))
            .append(" AND ExecutionStatus = 'Running'");
    if (status != null) {
      query
          .append(" AND ")
          .append(SessionSearchAttributes.AGENT_STATUS.getName())
          .append(" = ")
          .append(quoted(status));
    }
    if (agent != null) {
      query
          .append(" AND ")
          .append(SessionSearchAttributes.AGENT_NAME.getName())
          .append(" = ")
          .append(quoted(agent));
    }
    return query.toString();
  }

  private static String quoted(String value) {
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  private List<Listed> list(WorkflowClient client, String query, int max) {
    try {
      return client.listExecutions(query).limit(max).map(SessionsCommand::listed).toList();
    } catch (RuntimeException e) {
      Status refusal = invalidArgument(e);
      if (refusal != null && (status != null || agent != null)) {
        // The namespace lacks the attributes the filter names.
        throw new CliException(
            ExitCodes.ERROR,
            "Temporal cannot filter sessions by status or agent on namespace '"
                + connection.namespace()
                + "' ("
                + refusal.getDescription()
                + "); register the search attributes:\n  "
                + String.join(
                    "\n  ", SessionSearchAttributes.createCommands(connection.namespace())),
            e);
      }
      throw e;
    }
  }

  private static Status invalidArgument(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof StatusRuntimeException grpc
          && grpc.getStatus().getCode() == Status.Code.INVALID_ARGUMENT) {
        return grpc.getStatus();
      }
    }
    return null;
  }

  private static Listed listed(WorkflowExecutionMetadata execution) {
    SearchAttributes attributes = execution.getTypedSearchAttributes();
    return new Listed(
        execution.getExecution().getWorkflowId(),
        valueOf(attributes, SessionSearchAttributes.AGENT_NAME),
        valueOf(attributes, SessionSearchAttributes.AGENT_STATUS),
        valueOf(attributes, SessionSearchAttributes.PENDING_APPROVALS),
        valueOf(attributes, SessionSearchAttributes.PARENT_SESSION),
        execution.getStartTime() == null ? null : execution.getStartTime().toString());
  }

  private static <T> T valueOf(
      SearchAttributes attributes, io.temporal.common.SearchAttributeKey<T> key) {
    return attributes.containsKey(key) ? attributes.get(key) : null;
  }

  static void print(List<Listed> sessions, PrintWriter out) {
    if (sessions.isEmpty()) {
      out.println("No sessions.");
      out.flush();
      return;
    }
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"SESSION", "AGENT", "STATUS", "PENDING", "PARENT", "STARTED (UTC)"});
    for (Listed session : sessions) {
      rows.add(
          new String[] {
            RunResultPrinter.printable(session.sessionId()),
            orDash(session.agent()),
            orDash(session.status()),
            session.pendingApprovals() == null ? "-" : String.valueOf(session.pendingApprovals()),
            orDash(session.parentSession()),
            session.startTime() == null
                ? "-"
                : ProjectionPrinter.time(
                    java.time.Instant.parse(session.startTime()).toEpochMilli())
          });
    }
    ProjectionPrinter.printTable(
        rows, new boolean[] {false, false, false, true, false, false}, out);
    out.flush();
  }

  private static String orDash(String value) {
    return value == null ? "-" : RunResultPrinter.printable(value);
  }
}
