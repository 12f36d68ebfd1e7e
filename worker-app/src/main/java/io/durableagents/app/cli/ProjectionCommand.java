package io.durableagents.app.cli;

import io.durableagents.app.Durations;
import io.durableagents.cli.CliException;
import io.durableagents.cli.ConnectionOptions;
import io.durableagents.cli.ExitCodes;
import io.durableagents.cli.RunResultPrinter;
import io.durableagents.cli.Shown;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SessionFilter;
import io.durableagents.client.SessionIds;
import io.durableagents.client.SessionNotFoundException;
import io.durableagents.client.SessionPage;
import io.durableagents.client.SessionRow;
import io.durableagents.session.RunStatus;
import io.durableagents.store.AgentStore;
import io.durableagents.store.AgentStores;
import io.durableagents.store.PruneResult;
import io.durableagents.store.StoreOptions;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.store.internal.ProjectionRebuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.common.WorkflowExecutionHistory;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code agents projection delete|prune|rebuild}: maintenance of the projection database. They open
 * the store at {@code --projection} (migrating its schema if needed) and write to it.
 */
@Command(
    name = "projection",
    description = "Maintain the projection database: delete, prune or rebuild sessions.",
    synopsisSubcommandLabel = "COMMAND",
    subcommands = {
      ProjectionCommand.Delete.class,
      ProjectionCommand.Prune.class,
      ProjectionCommand.Rebuild.class
    },
    footer = "")
public class ProjectionCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    err.println("Missing a command: delete, prune or rebuild.");
    spec.commandLine().usage(err);
    return ExitCodes.USAGE;
  }

  private static void requireValidSession(String session) {
    try {
      SessionIds.requireValid(session);
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitCodes.USAGE, e.getMessage(), e);
    }
  }

  /** {@code agents projection delete SESSION [--keep-history]}. */
  @Command(
      name = "delete",
      description = {
        "Delete a session from the projection: its row, transcript, history and approvals.",
        "With --keep-history its history entries (and the messages they hold) stay.",
        "The workflow is not touched: a session that goes on afterwards needs",
        "'agents projection rebuild SESSION' to have its transcript again."
      },
      footer = {
        "",
        "Exit codes: 0 deleted, 1 error, 2 usage, 4 no such session in the projection."
      })
  public static class Delete implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Mixin ConnectionOptions connection;

    @Parameters(index = "0", paramLabel = "SESSION", description = "Session id.")
    String session;

    @Option(names = "--keep-history", description = "Keep the history entries and their messages.")
    boolean keepHistory;

    @Override
    public Integer call() {
      requireValidSession(session);
      boolean removed;
      try (AgentStore store = AgentStores.open(connection.projection())) {
        removed = store.delete(session, keepHistory);
      }
      if (!removed) {
        throw new SessionNotFoundException(session);
      }
      PrintWriter out = spec.commandLine().getOut();
      out.println(
          "Deleted session "
              + RunResultPrinter.printable(session)
              + " from the projection"
              + (keepHistory ? ", keeping its history." : "."));
      out.flush();
      return ExitCodes.OK;
    }
  }

  /**
   * {@code agents projection prune --older-than DURATION [--dry-run] [--yes]}. Deleting is for
   * good, so it asks first: {@code --dry-run} only lists what would go; otherwise a terminal is
   * asked to confirm, and without one (a script) {@code --yes} is required. An age under {@link
   * #MIN_AGE_WITHOUT_YES} would remove sessions that only just settled: it needs {@code --yes} even
   * at a terminal.
   */
  @Command(
      name = "prune",
      description = {
        "Remove settled sessions (finished, failed, cancelled) not updated for DURATION, with all",
        "their rows, and every session's history entries older than DURATION. Sessions in",
        "progress or awaiting approval keep their rows. --dry-run lists what would go; a",
        "terminal is asked to confirm; without one, --yes is required. DURATION under 1h",
        "needs --yes."
      },
      footer = {
        "",
        "DURATION: 30d, 12h, 90m, 45s, 1d12h, or ISO-8601 (P30D, PT12H).",
        "Exit codes: 0 pruned (or dry run), 1 error or not confirmed, 2 usage (or no --yes)."
      })
  public static class Prune implements Callable<Integer> {
    /** Sessions a dry run or a confirmation names; more are counted. */
    static final int LISTED = 20;

    @Spec CommandSpec spec;

    @Mixin ConnectionOptions connection;

    @Option(
        names = "--older-than",
        paramLabel = "DURATION",
        required = true,
        description = "Age of what is removed: 30d, 12h, 90m, 45s, 1d12h or ISO-8601 (P30D).")
    String olderThan;

    @Option(names = "--dry-run", description = "List what would be removed; remove nothing.")
    boolean dryRun;

    @Option(
        names = {"--yes", "-y"},
        description = "Prune without asking (required without a terminal, and under 1h).")
    boolean yes;

    /** Whether a person can be asked: standard input and output are a terminal. */
    boolean interactive = terminal();

    /** Where the answer to the confirmation is read from. */
    BufferedReader answers =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));

    @Override
    public Integer call() throws IOException {
      Duration age = parseDuration(spec, olderThan);
      Instant cutoff = Instant.now().minus(age);
      PrintWriter out = spec.commandLine().getOut();
      if (dryRun) {
        printPlan(cutoff, prunable(cutoff), out);
        return ExitCodes.OK;
      }
      if (!yes && age.compareTo(MIN_AGE_WITHOUT_YES) < 0) {
        throw new ParameterException(
            spec.commandLine(),
            "--older-than "
                + Shown.value(olderThan)
                + " is under "
                + MIN_AGE_WITHOUT_YES.toHours()
                + "h: it would remove sessions that only just settled. Add --yes to prune anyway"
                + " (--dry-run lists what would go).");
      }
      if (!yes) {
        if (!interactive) {
          throw new ParameterException(
              spec.commandLine(),
              "Pruning deletes rows for good: add --yes to confirm without a terminal"
                  + " (--dry-run lists what would go).");
        }
        printPlan(cutoff, prunable(cutoff), out);
        out.print("Prune them? [y/N] ");
        out.flush();
        String answer = answers.readLine();
        if (answer == null || !CONFIRM.contains(answer.strip().toLowerCase(Locale.ROOT))) {
          out.println("Nothing pruned.");
          out.flush();
          return ExitCodes.ERROR;
        }
      }
      PruneResult result;
      try (AgentStore store = AgentStores.open(connection.projection())) {
        result = store.prune(cutoff);
      }
      out.println(
          "Pruned what is older than "
              + Shown.value(olderThan)
              + " (before "
              + cutoff
              + "): "
              + plural(result.sessions(), "session", "sessions")
              + ", "
              + plural(result.historyEntries(), "history entry", "history entries")
              + ", "
              + plural(result.messages(), "message", "messages")
              + ", "
              + plural(result.approvals(), "approval", "approvals")
              + ".");
      out.flush();
      return ExitCodes.OK;
    }

    // Before Java 22 (17 is the release built for), a console exists only for a terminal; from
    // 22 on there is always one, and Console.isTerminal says.
    @SuppressWarnings("SystemConsoleNull")
    private static boolean terminal() {
      java.io.Console console = System.console();
      if (console == null) {
        return false;
      }
      try {
        return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
      } catch (ReflectiveOperationException e) {
        return true;
      }
    }

    /** The sessions a prune at {@code cutoff} removes: settled and not updated since. */
    private List<SessionRow> prunable(Instant cutoff) {
      List<SessionRow> prunable = new ArrayList<>();
      try (ProjectionReader reader = ProjectionReader.open(connection.projection())) {
        String cursor = null;
        do {
          SessionPage page = reader.sessions(SessionFilter.ALL, cursor, ProjectionReader.MAX_PAGE);
          for (SessionRow row : page.sessions()) {
            if (row.updatedAt() < cutoff.toEpochMilli() && !KEPT.contains(row.status())) {
              prunable.add(row);
            }
          }
          cursor = page.nextCursor();
        } while (cursor != null);
      }
      return prunable;
    }

    private static void printPlan(Instant cutoff, List<SessionRow> sessions, PrintWriter out) {
      out.println(
          "Would remove "
              + plural(sessions.size(), "settled session", "settled sessions")
              + " not updated since "
              + cutoff
              + (sessions.isEmpty() ? "" : ", with all their rows:"));
      sessions.stream()
          .limit(LISTED)
          .forEach(
              row ->
                  out.println(
                      "  "
                          + RunResultPrinter.printable(row.sessionId())
                          + "  "
                          + row.status().value()
                          + "  "
                          + Instant.ofEpochMilli(row.updatedAt())));
      if (sessions.size() > LISTED) {
        out.println("  ... and " + (sessions.size() - LISTED) + " more");
      }
      out.println(
          "and every session's history entries saved before "
              + cutoff
              + " (with the messages only they hold).");
      out.flush();
    }
  }

  /** The shortest {@code --older-than} a prune takes without {@code --yes}. */
  static final Duration MIN_AGE_WITHOUT_YES = Duration.ofHours(1);

  /** Statuses whose sessions a prune keeps, whatever their age (as the store does). */
  private static final Set<RunStatus> KEPT =
      Set.of(RunStatus.IN_PROGRESS, RunStatus.AWAITING_APPROVAL);

  private static final Set<String> CONFIRM = Set.of("y", "yes");

  /** {@code agents projection rebuild SESSION}. */
  @Command(
      name = "rebuild",
      description = {
        "Rebuild a session's projection rows from its workflow history in Temporal: every",
        "checkpoint save the workflow made is applied again, in order, in one transaction."
      },
      footer = {"", "Exit codes: 0 rebuilt, 1 error, 2 usage, 4 no such session workflow."})
  public static class Rebuild implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Mixin ConnectionOptions connection;

    @Mixin HistoryLimitOption historyLimit;

    @Parameters(index = "0", paramLabel = "SESSION", description = "Session id.")
    String session;

    @Override
    public Integer call() {
      requireValidSession(session);
      StoreOptions options = historyLimit.storeOptions();
      List<WorkflowExecutionHistory> runs;
      try (ConnectionOptions.Connection connected = connection.open(false)) {
        runs = fetchRuns(connected.workflowClient(), session);
      }
      ProjectionRebuilder.Result result;
      try (AgentStore store = AgentStores.open(connection.projection(), options)) {
        result =
            ProjectionRebuilder.newInstance().rebuild(session, runs, CheckpointStore.of(store));
      }
      PrintWriter out = spec.commandLine().getOut();
      out.println(
          "Rebuilt session "
              + RunResultPrinter.printable(session)
              + " from "
              + plural(result.saves(), "checkpoint save", "checkpoint saves")
              + " in "
              + plural(runs.size(), "workflow run", "workflow runs")
              + ": "
              + plural(result.messages(), "message", "messages")
              + ", "
              + plural(result.historyEntries(), "history entry", "history entries")
              + " kept"
              + (result.approvalsNotified() == 0
                  ? "."
                  : ", "
                      + plural(
                          result.approvalsNotified(),
                          "approval notification",
                          "approval notifications")
                      + "."));
      out.flush();
      return ExitCodes.OK;
    }

    private static List<WorkflowExecutionHistory> fetchRuns(WorkflowClient client, String session) {
      try {
        return ProjectionRebuilder.fetchRuns(client, session);
      } catch (WorkflowNotFoundException e) {
        throw new SessionNotFoundException(session);
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
          throw new SessionNotFoundException(session);
        }
        throw e;
      }
    }
  }

  /** {@code 30d}, {@code 12h}, {@code 1d12h}, {@code 90m}, {@code 45s}, or ISO-8601. */
  static Duration parseDuration(CommandSpec spec, String text) {
    return Durations.parse(text)
        .orElseThrow(
            () ->
                new ParameterException(
                    spec.commandLine(),
                    "Invalid --older-than '"
                        + Shown.value(text)
                        + "': expected a duration such as 30d, 12h, 90m, 45s, 1d12h"
                        + " or ISO-8601 (P30D, PT12H)."));
  }

  private static String plural(long count, String one, String many) {
    return count + " " + (count == 1 ? one : many);
  }
}
