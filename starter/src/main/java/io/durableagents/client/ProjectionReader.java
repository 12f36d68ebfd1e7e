package io.durableagents.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.workflow.Message;
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
 * Reads the projection the worker's store writes (sessions and transcripts), read-only: it never
 * creates a database, a table or a row. A database that does not exist yet, or has no tables yet,
 * reads as empty. Each read takes a connection of its own; there is no pool.
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
  private static final String SELECT_SESSION =
      "SELECT session_id, agent, status, current_run, last_step, message_count, input_tokens,"
          + " output_tokens, updated_at FROM agent_sessions WHERE session_id = ?";

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
        List.of(),
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
        Optional.empty(),
        connection -> {
          try (PreparedStatement select = connection.prepareStatement(SELECT_SESSION)) {
            select.setString(1, sessionId);
            try (ResultSet row = select.executeQuery()) {
              if (!row.next()) {
                return Optional.empty();
              }
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
                      row.getLong("updated_at")));
            }
          }
        });
  }

  /** Nothing stays open between reads; after closing, reads fail. */
  @Override
  public void close() {
    closed = true;
  }

  private <T> T read(String what, T whenAbsent, Query<T> query) {
    if (closed) {
      throw new IllegalStateException("the projection reader is closed");
    }
    if (sqliteFile != null && !Files.isRegularFile(sqliteFile)) {
      return whenAbsent;
    }
    try (Connection connection = DriverManager.getConnection(url, properties)) {
      if (sqliteFile == null) {
        connection.setReadOnly(true);
      }
      return query.run(connection);
    } catch (SQLException e) {
      if (isMissingTable(e)) {
        return whenAbsent;
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
}
