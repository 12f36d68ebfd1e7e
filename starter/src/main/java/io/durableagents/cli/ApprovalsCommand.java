package io.durableagents.cli;

import io.durableagents.client.ApprovalRow;
import io.durableagents.client.ProjectionReader;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code agents approvals}: the back-office inbox, from the projection: approvals of every session,
 * oldest request first. Reads the projection only; Temporal is not contacted.
 */
@Command(
    name = "approvals",
    description = {
      "List approvals from the projection, oldest request first: the back-office inbox.",
      "Decide one with: ./agents approve SESSION APPROVAL_ID (or reject)"
    },
    footer = {"", "Exit codes: 0 ok, 1 error, 2 usage."})
public class ApprovalsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Option(names = "--pending", description = "Only the approvals that wait for a decision.")
  boolean pending;

  @Option(names = "--json", description = "Print the approvals as one JSON array.")
  boolean json;

  @Override
  public Integer call() {
    List<ApprovalRow> approvals;
    try (ProjectionReader reader = ProjectionReader.open(connection.projection())) {
      approvals = reader.approvals(pending);
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      RunResultPrinter.printJson(approvals, out);
    } else {
      ProjectionPrinter.printApprovals(approvals, pending, out);
    }
    return ExitCodes.OK;
  }
}
