package io.durableagents.app.cli;

import io.durableagents.app.Durations;
import io.durableagents.cli.CliException;
import io.durableagents.cli.ConnectionOptions;
import io.durableagents.cli.ExitCodes;
import io.durableagents.cli.RunResultPrinter;
import io.durableagents.client.SessionIds;
import io.durableagents.client.SessionNotFoundException;
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
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
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

  /** {@code agents projection prune --older-than DURATION}. */
  @Command(
      name = "prune",
      description = {
        "Remove settled sessions (finished, failed, cancelled) not updated for DURATION, with all",
        "their rows, and every session's history entries older than DURATION. Sessions in",
        "progress or awaiting approval keep their rows."
      },
      footer = {"", "DURATION: 30d, 12h, 90m, 45s, 1d12h, or ISO-8601 (P30D, PT12H)."})
  public static class Prune implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Mixin ConnectionOptions connection;

    @Option(
        names = "--older-than",
        paramLabel = "DURATION",
        required = true,
        description = "Age of what is removed: 30d, 12h, 90m, 45s, 1d12h or ISO-8601 (P30D).")
    String olderThan;

    @Override
    public Integer call() {
      Duration age = parseDuration(spec, olderThan);
      Instant cutoff = Instant.now().minus(age);
      PruneResult result;
      try (AgentStore store = AgentStores.open(connection.projection())) {
        result = store.prune(cutoff);
      }
      PrintWriter out = spec.commandLine().getOut();
      out.println(
          "Pruned what is older than "
              + olderThan
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
  }

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
                        + text
                        + "': expected a duration such as 30d, 12h, 90m, 45s, 1d12h"
                        + " or ISO-8601 (P30D, PT12H)."));
  }

  private static String plural(long count, String one, String many) {
    return count + " " + (count == 1 ? one : many);
  }
}
