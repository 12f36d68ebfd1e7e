package io.durableagents.app.cli;

import io.durableagents.cli.CliException;
import io.durableagents.cli.ConnectionOptions;
import io.durableagents.cli.ExitCodes;
import io.durableagents.cli.RunResultPrinter;
import io.durableagents.testing.SessionReplayReport;
import io.durableagents.testing.SessionReplayResult;
import io.durableagents.testing.SessionReplayer;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
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
 * {@code agents replay FILE... | --from-server [QUERY]}: the pre-deploy check. Replays recorded
 * session histories with the workflow code of this build ({@link SessionReplayer}) and prints one
 * line per workflow run, so a change that would break the running sessions is found before the new
 * workers take them over.
 */
@Command(
    name = "replay",
    description = {
      "Replay recorded session histories with this build's workflow code, before",
      "deploying it: history JSON files (temporal workflow show --output json; a",
      "directory stands for its *.json files) or, with --from-server, the workflow",
      "runs a visibility query finds. Prints OK or FAIL and why for each run."
    },
    footer = {
      "",
      "FAIL means that workers of this build could not go on with that session: put",
      "the change behind Workflow.getVersion (see docs/replay.md).",
      "A file that cannot be read, is over "
          + ReplayCommand.HISTORY_FILE_LIMIT
          + " or is not a history is a FAIL line.",
      "Exit codes: 0 every run replays, 1 one does not (or the query finds none),",
      "2 usage (no history given, a missing file, an invalid query)."
    })
public class ReplayCommand implements Callable<Integer> {
  /** {@link SessionReplayer#MAX_HISTORY_FILE_BYTES} in MiB, for the help. */
  static final String HISTORY_FILE_LIMIT = (SessionReplayer.MAX_HISTORY_FILE_BYTES >> 20) + " MiB";

  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Parameters(
      arity = "0..*",
      paramLabel = "FILE",
      description = "History JSON files, or directories of them.")
  List<Path> files;

  @Option(
      names = "--from-server",
      arity = "0..1",
      paramLabel = "QUERY",
      fallbackValue = SessionReplayer.ALL_SESSIONS_QUERY,
      description =
          "Fetch the histories of the runs this visibility query finds (without QUERY: "
              + SessionReplayer.ALL_SESSIONS_QUERY
              + ").")
  String query;

  @Option(
      names = "--limit",
      paramLabel = "N",
      defaultValue = "100",
      description =
          "With --from-server, replay at most N runs, newest first (default: ${DEFAULT-VALUE}).")
  int limit;

  @Override
  public Integer call() {
    boolean hasFiles = files != null && !files.isEmpty();
    if (hasFiles == (query != null)) {
      throw new ParameterException(
          spec.commandLine(),
          hasFiles
              ? "Give history files or --from-server, not both."
              : "Missing histories: give history files (or directories), or --from-server [QUERY].");
    }
    if (limit < 1) {
      throw new ParameterException(spec.commandLine(), "--limit must be at least 1, was " + limit);
    }
    SessionReplayReport report = hasFiles ? replayFiles() : replayFromServer();
    PrintWriter out = spec.commandLine().getOut();
    for (SessionReplayResult result : report.results()) {
      out.println(RunResultPrinter.printable(result.toString()));
    }
    out.println(report.summary() + ".");
    out.flush();
    return report.allReplayed() ? ExitCodes.OK : ExitCodes.ERROR;
  }

  private SessionReplayReport replayFiles() {
    try {
      return SessionReplayer.newInstance().replayFiles(files);
    } catch (NoSuchFileException e) {
      throw new CliException(ExitCodes.USAGE, "No such history file: " + e.getFile(), e);
    } catch (IOException e) {
      // Unreadable files are FAIL lines; what is left is a directory that cannot be listed.
      throw new CliException(ExitCodes.USAGE, "Cannot list history directory: " + e, e);
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitCodes.USAGE, e.getMessage(), e);
    }
  }

  private SessionReplayReport replayFromServer() {
    SessionReplayReport report;
    try (ConnectionOptions.Connection connected = connection.open(false)) {
      report = replayListed(connected);
    }
    if (report.results().isEmpty()) {
      // An empty check passes nothing: most likely the wrong namespace or query.
      throw new CliException(
          ExitCodes.ERROR,
          "No workflow run in namespace "
              + connection.namespace()
              + " matches "
              + query
              + ": nothing was replayed.");
    }
    return report;
  }

  private SessionReplayReport replayListed(ConnectionOptions.Connection connected) {
    try {
      return SessionReplayer.newInstance()
          .replayFromServer(connected.workflowClient(), query, limit);
    } catch (RuntimeException e) {
      Status refused = invalidArgument(e);
      if (refused == null) {
        throw e;
      }
      // Only the listing is refused so: a history that cannot be fetched is a FAIL line.
      throw new CliException(
          ExitCodes.USAGE,
          "Invalid visibility query '"
              + query
              + "': "
              + refused.getDescription()
              + " (see docs/replay.md for examples)",
          e);
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
}
