package io.durableagents.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.workflow.Message;
import io.durableagents.workflow.Usage;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import org.sqlite.SQLiteConfig;

/**
 * Reads the projection the worker's store writes (sessions, transcripts, checkpoint history and
 * approvals), read-only: it never creates a database, a table or a row. A SQLite path that is
 * missing or a directory, and a database without the projection's tables, are errors naming the
 * URL, never an empty projection: a wrong URL must not read as "nothing there" (the worker creates
 * the database and its tables when it starts). Each read takes a connection of its own; there is
 * no pool.
 *
 * <p>Supports {@code jdbc:sqlite:PATH} and {@code jdbc:postgresql://HOST[:PORT]/DATABASE} (the
 * latter needs the PostgreSQL JDBC driver on the classpath). Thread-safe.
 */
public final class ProjectionReader implements AutoCloseable {
  private static final String SQLITE_PREFIX = "jdbc:sqlite:";
  private static final String POSTGRESQL_PREFIX = "jdbc:postgresql:";
  private static final String POSTGRESQL_DRIVER = "org.postgresql.Driver";
  private static final int BUSY_TIMEOUT_MILLIS = 10_000;
  private static final String EXPECTED =
      "expected jdbc:sqlite:PATH (a database file) or jdbc:postgresql://HOST[:PORT]/DATABASE";

  private static final String SELECT_ALL_MESSAGES =
      "SELECT seq, body FROM agent_messages WHERE session_id = ? ORDER BY seq";
  private static final String SELECT_FIRST_MESSAGES =
      "SELECT seq, body FROM agent_messages WHERE session_id = ? AND seq < ? ORDER BY seq";
  /** Every column: a projection that predates a column (fork_patch) still reads. */
  private static final String SELECT_SESSION = "SELECT * FROM agent_sessions WHERE session_id = ?";
  private static final String SELECT_HISTORY =
      "SELECT step, run, status, finish_reason, message_count, input_tokens, output_tokens,"
          + " business_state, fingerprint, run_config, saved_at FROM agent_checkpoints"
          + " WHERE session_id = ? ORDER BY step DESC";
  private static final String SELECT_HISTORY_LIMIT = SELECT_HISTORY + " LIMIT ?";
  private static final String SELECT_CHECKPOINT =
      "SELECT step, run, status, finish_reason, message_count, input_tokens, output_tokens,"
          + " business_state, fingerprint, run_config, saved_at FROM agent_checkpoints"
          + " WHERE session_id = ? AND step = ?";
  private static final String SELECT_APPROVALS =
      "SELECT approval_id, session_id, run, step, tool_call_id, tool_name, input, status,"
          + " requested_at, expires_at, decided_at, decided_by, note, notified_at"
          + " FROM agent_approvals";
  private static final String ORDER_APPROVALS = " ORDER BY requested_at, approval_id";

  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private final String url;
  private final Path sqliteFile;
  private final Properties properties;
  private volatile boolean closed;

  private ProjectionReader(String url, Path sqliteFile, Properties properties) {
    this.url = url;
    this.sqliteFile = sqliteFile;
    this.properties = properties;
  }

  /**
   * A reader of the projection at {@code jdbcUrl}. Connects only when reading.
   *
   * @throws IllegalArgumentException if the URL is not a supported one
   * @throws AgentClientException if the URL needs a JDBC driver that is not on the classpath
   */
  public static ProjectionReader open(String jdbcUrl) {
    if (jdbcUrl == null || jdbcUrl.isBlank()) {
      throw new IllegalArgumentException("the projection URL is empty: " + EXPECTED);
    }
    String url = jdbcUrl.strip();
    String lower = url.toLowerCase(Locale.ROOT);
    if (lower.startsWith(SQLITE_PREFIX)) {
      SQLiteConfig config = new SQLiteConfig();
      config.setReadOnly(true);
      config.setBusyTimeout(BUSY_TIMEOUT_MILLIS);
      return new ProjectionReader(url, sqliteFile(url), config.toProperties());
    }
    if (lower.startsWith(POSTGRESQL_PREFIX)) {
      try {
        Class.forName(POSTGRESQL_DRIVER, true, ProjectionReader.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new AgentClientException(
            "the PostgreSQL JDBC driver (org.postgresql:postgresql) is not on the classpath:"
                + " add it to read the projection at "
                + describe(url),
            e);
      }
      return new ProjectionReader(url, null, new Properties());
    }
    throw new IllegalArgumentException(
        "unsupported projection URL '" + describe(url) + "': " + EXPECTED);
  }

  /**
   * The first {@code count} messages of a session's transcript, in order; all of them if {@code
   * count} is negative. Fewer if the projection holds fewer (none for an unknown session).
   *
   * @throws AgentClientException if the projection cannot be read
   */
  public List<Message> messages(String sessionId, int count) {
    requireSessionId(sessionId);
    if (count == 0) {
      return List.of();
    }
    return read(
        "the messages of session " + sessionId,
        connection -> {
          List<Message> result = new ArrayList<>(count > 0 ? count : 16);
          try (PreparedStatement select =
              connection.prepareStatement(count < 0 ? SELECT_ALL_MESSAGES : SELECT_FIRST_MESSAGES)) {
            select.setString(1, sessionId);
            if (count > 0) {
              select.setInt(2, count);
            }
            try (ResultSet rows = select.executeQuery()) {
              while (rows.next()) {
                result.add(decode(sessionId, rows.getInt(1), rows.getString(2)));
              }
            }
          }
          return List.copyOf(result);
        });
  }

  /**
   * The projection's row of a session, if the worker stored any checkpoint of it.
   *
   * @throws AgentClientException if the projection cannot be read
   */
  public Optional<SessionRow> session(String sessionId) {
    requireSessionId(sessionId);
    return read(
        "session " + sessionId,
        connection -> {
          try (PreparedStatement select = connection.prepareStatement(SELECT_SESSION)) {
            select.setString(1, sessionId);
            try (ResultSet row = select.executeQuery()) {
              if (!row.next()) {
                return Optional.empty();
              }
              int parentStep = row.getInt("parent_step");
              Integer lineageStep = row.wasNull() ? null : parentStep;
              return Optional.of(
                  new SessionRow(
                      row.getString("session_id"),
                      row.getString("agent"),
                      row.getString("status"),
                      row.getInt("current_run"),
                      row.getInt("last_step"),
                      row.getInt("message_count"),
                      row.getLong("input_tokens"),
                      row.getLong("output_tokens"),
                      row.getLong("updated_at"),
                      row.getString("parent_session_id"),
                      lineageStep,
                      optionalString(row, "fork_patch")));
            }
          }
        });
  }

  /**
   * The checkpoint history of a session, newest step first: one entry per kept step, each with
   * its full checkpoint (the transcript up to that step included). Empty for an unknown session,
   * and for one whose history the store keeps none of.
   *
   * @param limit at most this many entries (the newest); zero or less means all that are kept
   * @throws AgentClientException if the projection cannot be read, or lacks messages an entry
   *     refers to (rebuild it with {@code agents projection rebuild SESSION})
   */
  public List<HistoryEntry> history(String sessionId, int limit) {
    requireSessionId(sessionId);
    return read(
        "the history of session " + sessionId,
        true,
        connection -> {
          List<EntryRow> rows = new ArrayList<>();
          try (PreparedStatement select =
              connection.prepareStatement(limit > 0 ? SELECT_HISTORY_LIMIT : SELECT_HISTORY)) {
            select.setString(1, sessionId);
            if (limit > 0) {
              select.setInt(2, limit);
            }
            try (ResultSet row = select.executeQuery()) {
              while (row.next()) {
                rows.add(EntryRow.read(row));
              }
            }
          }
          int needed = rows.stream().mapToInt(EntryRow::messageCount).max().orElse(0);
          List<Message> transcript = contiguousMessages(connection, sessionId, needed);
          List<HistoryEntry> entries = new ArrayList<>(rows.size());
          for (EntryRow row : rows) {
            Checkpoint checkpoint = row.checkpoint(sessionId, transcript);
            entries.add(new HistoryEntry(row.step(), row.savedAt(), row.status(), checkpoint));
          }
          return List.copyOf(entries);
        });
  }

  /**
   * The kept checkpoint of a session at {@code step}, if the history has it.
   *
   * @throws AgentClientException if the projection cannot be read, or lacks messages the entry
   *     refers to
   */
  public Optional<Checkpoint> checkpoint(String sessionId, int step) {
    requireSessionId(sessionId);
    return read(
        "checkpoint " + step + " of session " + sessionId,
        true,
        connection -> {
          EntryRow entry;
          try (PreparedStatement select = connection.prepareStatement(SELECT_CHECKPOINT)) {
            select.setString(1, sessionId);
            select.setInt(2, step);
            try (ResultSet row = select.executeQuery()) {
              if (!row.next()) {
                return Optional.empty();
              }
              entry = EntryRow.read(row);
            }
          }
          List<Message> transcript = contiguousMessages(connection, sessionId, entry.messageCount());
          return Optional.of(entry.checkpoint(sessionId, transcript));
        });
  }

  /** {@link #approvals(String, boolean)} of every session. */
  public List<ApprovalRow> approvals(boolean pendingOnly) {
    return approvals(null, pendingOnly);
  }

  /**
   * Approvals, oldest request first: of one session ({@code null}: of every session), optionally
   * only those that wait for a decision. This is what a back-office inbox lists.
   *
   * @throws AgentClientException if the projection cannot be read
   */
  public List<ApprovalRow> approvals(String sessionId, boolean pendingOnly) {
    if (sessionId != null) {
      requireSessionId(sessionId);
    }
    StringBuilder sql = new StringBuilder(SELECT_APPROVALS);
    if (sessionId != null) {
      sql.append(" WHERE session_id = ?");
    }
    if (pendingOnly) {
      sql.append(sessionId != null ? " AND" : " WHERE").append(" status = 'pending'");
    }
    sql.append(ORDER_APPROVALS);
    return read(
        "approvals",
        connection -> {
          List<ApprovalRow> result = new ArrayList<>();
          try (PreparedStatement select = connection.prepareStatement(sql.toString())) {
            if (sessionId != null) {
              select.setString(1, sessionId);
            }
            try (ResultSet row = select.executeQuery()) {
              while (row.next()) {
                result.add(
                    new ApprovalRow(
                        row.getString("session_id"),
                        row.getString("approval_id"),
                        row.getInt("run"),
                        row.getInt("step"),
                        row.getString("tool_call_id"),
                        row.getString("tool_name"),
                        json(row.getString("input")),
                        row.getString("status"),
                        row.getLong("requested_at"),
                        row.getLong("expires_at"),
                        row.getLong("decided_at"),
                        row.getString("decided_by"),
                        row.getString("note"),
                        row.getLong("notified_at")));
              }
            }
          }
          return List.copyOf(result);
        });
  }

  /** The first {@code count} messages, which must all be there, seq 0 up without a gap. */
  private static List<Message> contiguousMessages(Connection connection, String sessionId, int count)
      throws SQLException {
    List<Message> result = new ArrayList<>(count);
    if (count == 0) {
      return result;
    }
    try (PreparedStatement select = connection.prepareStatement(SELECT_FIRST_MESSAGES)) {
      select.setString(1, sessionId);
      select.setInt(2, count);
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next() && rows.getInt(1) == result.size()) {
          result.add(decode(sessionId, rows.getInt(1), rows.getString(2)));
        }
      }
    }
    if (result.size() < count) {
      throw new AgentClientException(
          "the projection lacks messages of session " + sessionId + ": its history needs the first "
              + count + " but only " + result.size() + " are there without a gap; rebuild it from"
              + " the workflow history with 'agents projection rebuild " + sessionId + "'");
    }
    return result;
  }

  /** A row of {@code agent_checkpoints}. */
  private record EntryRow(
      int step,
      int run,
      String status,
      String finishReason,
      int messageCount,
      Usage usage,
      JsonNode businessState,
      String fingerprint,
      JsonNode runConfig,
      long savedAt) {

    static EntryRow read(ResultSet row) throws SQLException {
      return new EntryRow(
          row.getInt("step"),
          row.getInt("run"),
          row.getString("status"),
          row.getString("finish_reason"),
          row.getInt("message_count"),
          new Usage(row.getLong("input_tokens"), row.getLong("output_tokens")),
          json(row.getString("business_state")),
          row.getString("fingerprint"),
          json(row.getString("run_config")),
          row.getLong("saved_at"));
    }

    Checkpoint checkpoint(String sessionId, List<Message> transcript) {
      return new Checkpoint(
          sessionId,
          step,
          run,
          status,
          finishReason,
          transcript.subList(0, messageCount),
          businessState,
          usage,
          fingerprint,
          runConfig,
          savedAt);
    }
  }

  /** A JSON column: null stays null, text that is not JSON reads as a JSON string. */
  private static JsonNode json(String text) {
    if (text == null) {
      return null;
    }
    try {
      return JSON.readTree(text);
    } catch (JsonProcessingException e) {
      return JSON.getNodeFactory().textNode(text);
    }
  }

  /** Nothing stays open between reads; after closing, reads fail. */
  @Override
  public void close() {
    closed = true;
  }

  private <T> T read(String what, Query<T> query) {
    return read(what, false, query);
  }

  /**
   * Runs {@code query} on a connection of its own; with {@code snapshot}, in one read-only
   * transaction whose statements all see the same state of the database (several statements that
   * must agree, such as history entries and the messages they refer to).
   */
  private <T> T read(String what, boolean snapshot, Query<T> query) {
    if (closed) {
      throw new IllegalStateException("the projection reader is closed");
    }
    if (sqliteFile != null && !Files.isRegularFile(sqliteFile)) {
      throw new AgentClientException(
          Files.isDirectory(sqliteFile)
              ? "the projection " + describe(url) + " names a directory, not a SQLite database file"
              : "no projection database at " + sqliteFile + " (" + describe(url) + "): the worker"
                  + " creates it when it starts; point the client at the worker's projection");
    }
    try (Connection connection = DriverManager.getConnection(url, properties)) {
      if (sqliteFile == null) {
        connection.setReadOnly(true);
      }
      if (!snapshot) {
        return query.run(connection);
      }
      if (sqliteFile == null) {
        // PostgreSQL's default (read committed) takes a snapshot per statement.
        connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      }
      connection.setAutoCommit(false);
      try {
        return query.run(connection);
      } finally {
        connection.rollback();
      }
    } catch (SQLException e) {
      if (isMissingTable(e)) {
        throw new AgentClientException(
            "the database at " + describe(url) + " holds no projection (" + e.getMessage()
                + "): the worker creates its tables when it starts; point the client at the"
                + " worker's projection",
            e);
      }
      throw new AgentClientException(
          "cannot read " + what + " from the projection at " + describe(url) + ": "
              + e.getMessage(),
          e);
    }
  }

  private static boolean isMissingTable(SQLException e) {
    if ("42P01".equals(e.getSQLState())) {
      return true;
    }
    String message = e.getMessage();
    return message != null && message.toLowerCase(Locale.ROOT).contains("no such table");
  }

  private static Message decode(String sessionId, int seq, String body) {
    try {
      Message message = JSON.readValue(body, Message.class);
      if (message == null) {
        throw new AgentClientException(
            "message " + seq + " of session " + sessionId + " is stored as JSON null");
      }
      return message;
    } catch (JsonProcessingException e) {
      throw new AgentClientException(
          "message " + seq + " of session " + sessionId + " is not a valid message JSON", e);
    }
  }

  private static Path sqliteFile(String url) {
    String rest = url.substring(SQLITE_PREFIX.length());
    int query = rest.indexOf('?');
    String parameters = query < 0 ? "" : rest.substring(query + 1);
    String file = query < 0 ? rest : rest.substring(0, query);
    if (file.startsWith("file:")) {
      file = file.substring("file:".length());
      if (file.startsWith("///")) {
        file = file.substring(2);
      }
    }
    if (file.isBlank()
        || file.equals(":memory:")
        || file.startsWith(":resource:")
        || parameters.toLowerCase(Locale.ROOT).contains("mode=memory")) {
      throw new IllegalArgumentException(
          "the projection needs a SQLite database file, got '" + url + "'");
    }
    try {
      return Path.of(file);
    } catch (InvalidPathException e) {
      throw new IllegalArgumentException("invalid SQLite database path in '" + url + "'", e);
    }
  }

  /** The URL without what may be secret: the user info and the query. */
  private static String describe(String url) {
    String result = url;
    int query = result.indexOf('?');
    if (query >= 0) {
      result = result.substring(0, query) + "?...";
    }
    int scheme = result.indexOf("//");
    int at = result.indexOf('@');
    if (scheme >= 0 && at > scheme) {
      result = result.substring(0, scheme + 2) + "***@" + result.substring(at + 1);
    }
    return result;
  }

  private static void requireSessionId(String sessionId) {
    if (sessionId == null || sessionId.isBlank()) {
      throw new IllegalArgumentException("sessionId must not be blank");
    }
  }

  @FunctionalInterface
  private interface Query<T> {
    T run(Connection connection) throws SQLException;
  }

  /** A column added by a later migration: null when the projection's schema is older. */
  private static String optionalString(ResultSet row, String column) throws SQLException {
    java.sql.ResultSetMetaData meta = row.getMetaData();
    for (int i = 1; i <= meta.getColumnCount(); i++) {
      if (meta.getColumnName(i).equalsIgnoreCase(column)) {
        return row.getString(i);
      }
    }
    return null;
  }
}
