package io.durableagents.cli;

import io.durableagents.client.HistoryEntry;
import io.durableagents.client.ProjectionReader;
import io.durableagents.session.RunRecord;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code agents history SESSION}: the session's checkpoint history from the projection, newest step
 * first. Reads the projection only; Temporal is not contacted.
 */
@Command(
    name = "history",
    description = {
      "Show a session's checkpoint history from the projection, newest step first:",
      "one entry per model turn and tool batch, each a full checkpoint (--json);",
      "then the model turns and tool calls of the entries with their durations,",
      "and the session's runs with when they started and settled."
    },
    footer = {"", "Exit codes: 0 ok, 1 error, 2 usage, 4 no such session in the projection."})
public class HistoryCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Parameters(index = "0", paramLabel = "SESSION", description = "Session id.")
  String session;

  @Option(
      names = "--limit",
      paramLabel = "N",
      description = "At most N entries (N >= 1), the newest (default: all that are kept).")
  Integer limit;

  @Option(
      names = "--json",
      description = "Print the entries as one JSON array of {step, savedAt, status, checkpoint}.")
  boolean json;

  @Override
  public Integer call() {
    SendCommand.requireValidSession(session);
    // Like sessions --limit: at least 1. The reader takes 0 as "all", which must not be what an
    // explicit --limit 0 does.
    if (limit != null && limit < 1) {
      throw new ParameterException(
          spec.commandLine(),
          "--limit must be at least 1, got " + limit + " (leave it out for every kept entry).");
    }
    List<HistoryEntry> entries;
    List<RunRecord> runs;
    boolean known;
    try (ProjectionReader reader = ProjectionReader.open(connection.projection())) {
      entries = reader.history(session, limit == null ? 0 : limit);
      known = !entries.isEmpty() || reader.session(session).isPresent();
      runs = json || !known ? List.of() : reader.runs(session);
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      RunResultPrinter.printJson(entries, out);
    } else if (known) {
      ProjectionPrinter.printHistory(session, entries, out);
      StepPrinter.printSteps(entries, out);
      StepPrinter.printRuns(runs, out);
      out.flush();
    }
    if (!known) {
      PrintWriter err = spec.commandLine().getErr();
      err.println(
          "No session '"
              + RunResultPrinter.printable(session)
              + "' in the projection "
              + connection.projection()
              + " (run from the worker's directory or pass its --projection).");
      err.flush();
      return ExitCodes.NOT_FOUND;
    }
    return ExitCodes.OK;
  }
}
