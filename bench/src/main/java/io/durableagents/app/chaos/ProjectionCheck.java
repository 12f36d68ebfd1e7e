package io.durableagents.app.chaos;

import io.durableagents.app.cli.AgentsMain;
import io.durableagents.store.internal.ProjectionRebuilder;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.temporal.client.WorkflowClient;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine;

/**
 * The projection against a rebuild from the histories: {@code agents projection rebuild SESSION}
 * (the CLI's own command line, run in this JVM) for every session into a fresh database, then every
 * row of the session in each projection table of both databases compared, column by column.
 *
 * <p>A fork is the exception the store documents (docs/store.md, "Rebuild"): the messages and the
 * entry it copied from its source are in no workflow history (the fork's history starts after
 * them), and a rebuild keeps them from the database it rebuilds into; into an empty one it fails
 * ("its first save starts at message 5, and the store holds only 0 of the messages before it"), and
 * its session row, which the fork's preparation created, is kept with its {@code created_at}. So
 * before a fork is rebuilt, exactly those rows (its session row, its messages below its first
 * save's first message, its entries below that save's step) are copied from the live projection
 * into the fresh one, and counted; the rebuild then writes the rest from the fork's history, and
 * every row is compared. That the copied messages are the source's is checked by the {@link
 * Verifier}.
 */
final class ProjectionCheck {
  /** The tables the workflow's checkpoint saves write, and how their rows of a session sort. */
  private static final Map<String, String> TABLES =
      Map.of(
          "agent_sessions", "session_id",
          "agent_messages", "seq",
          "agent_checkpoints", "step",
          "agent_approvals", "approval_id");

  private static final int THREADS = 3;

  final List<String> violations = new ArrayList<>();
  int rebuilt;
  int identical;
  int rows;
  int forkPrefixRows;

  private final WorkflowClient temporal;

  ProjectionCheck(WorkflowClient temporal) {
    this.temporal = temporal;
  }

  /** Rebuilds {@code sessions} into {@code rebuiltUrl}, then compares them with {@code liveUrl}. */
  void check(
      List<String> sessions,
      Set<String> forks,
      String temporalAddress,
      String liveUrl,
      String rebuiltUrl,
      Path dir)
      throws InterruptedException {
    AtomicInteger prefixRows = new AtomicInteger();
    ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    AtomicInteger done = new AtomicInteger();
    AtomicInteger same = new AtomicInteger();
    AtomicInteger compared = new AtomicInteger();
    Map<String, String> env =
        Map.of("TEMPORAL_CONFIG_FILE", dir.resolve("no-profiles.toml").toString());
    ExecutorService pool = Executors.newFixedThreadPool(THREADS, Cluster.daemon("rebuild"));
    try {
      List<Future<?>> work = new ArrayList<>();
      for (String session : sessions) {
        work.add(
            pool.submit(
                () -> {
                  if (forks.contains(session)) {
                    try {
                      prefixRows.addAndGet(copyForkPrefix(session, liveUrl, rebuiltUrl));
                    } catch (SQLException | RuntimeException e) {
                      problems.add(session + ": cannot copy the fork's prefix: " + e);
                      return;
                    }
                  }
                  String problem = rebuild(env, session, temporalAddress, rebuiltUrl);
                  if (problem != null) {
                    problems.add(problem);
                    return;
                  }
                  done.incrementAndGet();
                  String difference = compare(session, liveUrl, rebuiltUrl, compared);
                  if (difference == null) {
                    same.incrementAndGet();
                  } else {
                    problems.add(difference);
                  }
                }));
      }
      for (Future<?> future : work) {
        try {
          future.get();
        } catch (java.util.concurrent.ExecutionException e) {
          problems.add("the rebuild check failed: " + Driver.describe(e.getCause()));
        }
      }
    } finally {
      pool.shutdownNow();
    }
    violations.addAll(problems);
    rebuilt = done.get();
    identical = same.get();
    rows = compared.get();
    forkPrefixRows = prefixRows.get();
  }

  /**
   * Copies what a rebuild of the fork keeps rather than derives: its rows below its first recorded
   * save (messages before the save's first message, entries before its step). Returns the rows.
   */
  private int copyForkPrefix(String fork, String liveUrl, String rebuiltUrl) throws SQLException {
    List<CheckpointSave> saves =
        ProjectionRebuilder.newInstance().saves(ProjectionRebuilder.fetchRuns(temporal, fork));
    if (saves.isEmpty()) {
      return 0;
    }
    CheckpointSave first = saves.get(0);
    try (Connection live = DriverManager.getConnection(liveUrl);
        Connection rebuilt = DriverManager.getConnection(rebuiltUrl)) {
      return copy(live, rebuilt, "agent_sessions", "0", fork, 1)
          + copy(live, rebuilt, "agent_messages", "seq", fork, first.firstSeq())
          + copy(live, rebuilt, "agent_checkpoints", "step", fork, first.step());
    }
  }

  /**
   * Copies the rows of {@code session} in {@code table} whose {@code column} is below {@code
   * below}.
   */
  private static int copy(
      Connection from, Connection to, String table, String column, String session, int below)
      throws SQLException {
    int copied = 0;
    try (PreparedStatement select =
        from.prepareStatement(
            "SELECT * FROM " + table + " WHERE session_id = ? AND " + column + " < ?")) {
      select.setString(1, session);
      select.setInt(2, below);
      try (ResultSet row = select.executeQuery()) {
        ResultSetMetaData meta = row.getMetaData();
        int columns = meta.getColumnCount();
        StringBuilder names = new StringBuilder();
        StringBuilder marks = new StringBuilder();
        for (int c = 1; c <= columns; c++) {
          names.append(c == 1 ? "" : ", ").append(meta.getColumnName(c));
          marks.append(c == 1 ? "?" : ", ?");
        }
        try (PreparedStatement insert =
            to.prepareStatement(
                "INSERT INTO " + table + " (" + names + ") VALUES (" + marks + ")")) {
          while (row.next()) {
            for (int c = 1; c <= columns; c++) {
              insert.setObject(c, row.getObject(c), meta.getColumnType(c));
            }
            insert.executeUpdate();
            copied++;
          }
        }
      }
    }
    return copied;
  }

  /** Runs {@code agents projection rebuild}; null when it exited 0, else what it said. */
  private static String rebuild(
      Map<String, String> env, String session, String address, String rebuiltUrl) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine command = AgentsMain.commandLine(env);
    command.setOut(new PrintWriter(out, true));
    command.setErr(new PrintWriter(err, true));
    int exit =
        command.execute(
            "projection", "rebuild", session, "--temporal", address, "--projection", rebuiltUrl);
    if (exit == 0) {
      return null;
    }
    return session + ": agents projection rebuild exited " + exit + ": " + err + out;
  }

  /**
   * Null when every row of {@code session} is the same in both databases, else the first change.
   */
  private static String compare(
      String session, String liveUrl, String rebuiltUrl, AtomicInteger compared) {
    try (Connection live = DriverManager.getConnection(liveUrl);
        Connection rebuilt = DriverManager.getConnection(rebuiltUrl)) {
      for (Map.Entry<String, String> table : TABLES.entrySet()) {
        List<Map<String, Object>> expected = rows(live, table.getKey(), table.getValue(), session);
        List<Map<String, Object>> actual = rows(rebuilt, table.getKey(), table.getValue(), session);
        compared.addAndGet(expected.size());
        if (!expected.equals(actual)) {
          return session
              + ": "
              + table.getKey()
              + " differs from the rebuild from history: "
              + firstDifference(expected, actual);
        }
      }
      return null;
    } catch (SQLException e) {
      return session + ": cannot compare the projections: " + e;
    }
  }

  private static String firstDifference(
      List<Map<String, Object>> live, List<Map<String, Object>> rebuilt) {
    for (int i = 0; i < Math.max(live.size(), rebuilt.size()); i++) {
      Map<String, Object> a = i < live.size() ? live.get(i) : null;
      Map<String, Object> b = i < rebuilt.size() ? rebuilt.get(i) : null;
      if (a == null || b == null) {
        return "row "
            + i
            + " live "
            + a
            + " rebuilt "
            + b
            + " ("
            + live.size()
            + " rows live, "
            + rebuilt.size()
            + " rebuilt)";
      }
      if (!a.equals(b)) {
        Map<String, String> changed = new LinkedHashMap<>();
        a.forEach(
            (column, value) -> {
              if (!Objects.equals(value, b.get(column))) {
                changed.put(column, "live " + value + ", rebuilt " + b.get(column));
              }
            });
        return "row " + i + " (" + firstColumns(a) + "): " + changed;
      }
    }
    return "(none)";
  }

  /** The row's first two columns: its key, for the message. */
  private static String firstColumns(Map<String, Object> row) {
    return row.entrySet().stream()
        .limit(2)
        .map(String::valueOf)
        .reduce((x, y) -> x + ", " + y)
        .orElse("");
  }

  private static List<Map<String, Object>> rows(
      Connection connection, String table, String order, String session) throws SQLException {
    List<Map<String, Object>> rows = new ArrayList<>();
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT * FROM " + table + " WHERE session_id = ? ORDER BY " + order)) {
      select.setString(1, session);
      try (ResultSet row = select.executeQuery()) {
        ResultSetMetaData meta = row.getMetaData();
        while (row.next()) {
          Map<String, Object> values = new LinkedHashMap<>();
          for (int column = 1; column <= meta.getColumnCount(); column++) {
            Object value = row.getObject(column);
            values.put(
                meta.getColumnName(column),
                value instanceof Number number ? (Object) number.longValue() : value);
          }
          rows.add(values);
        }
      }
    }
    return rows;
  }
}
