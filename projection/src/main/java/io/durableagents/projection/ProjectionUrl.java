package io.durableagents.projection;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Properties;
import org.sqlite.SQLiteConfig;

/**
 * A JDBC URL of the projection: {@code jdbc:sqlite:PATH[?PARAMS]} or {@code
 * jdbc:postgresql://HOST[:PORT]/DATABASE[?PARAMS]}. The store (which writes and pools) and the
 * client's reader (which only reads) parse the same URLs the same way; each words its own refusal
 * of a SQLite database that is no file. Immutable.
 */
public final class ProjectionUrl {
  /** The prefix of SQLite URLs. */
  public static final String SQLITE_PREFIX = "jdbc:sqlite:";

  /** The prefix of PostgreSQL URLs. */
  public static final String POSTGRESQL_PREFIX = "jdbc:postgresql:";

  /** How long a SQLite connection waits for another connection's lock before it fails. */
  public static final int SQLITE_BUSY_TIMEOUT_MILLIS = 10_000;

  private static final String EXPECTED =
      "expected jdbc:sqlite:PATH (a database file) or jdbc:postgresql://HOST[:PORT]/DATABASE";

  /** The databases the projection is kept in. */
  public enum Kind {
    /** A SQLite database file. */
    SQLITE("org.sqlite.JDBC"),
    /** A PostgreSQL server. */
    POSTGRESQL("org.postgresql.Driver");

    private final String driverClassName;

    Kind(String driverClassName) {
      this.driverClassName = driverClassName;
    }

    /** The JDBC driver's class, to check that it is on the classpath before connecting. */
    public String driverClassName() {
      return driverClassName;
    }
  }

  private final String url;
  private final Kind kind;
  private final boolean sqliteInMemory;
  private final boolean sqliteResource;
  private final Path sqliteFile;

  private ProjectionUrl(
      String url, Kind kind, boolean sqliteInMemory, boolean sqliteResource, Path sqliteFile) {
    this.url = url;
    this.kind = kind;
    this.sqliteInMemory = sqliteInMemory;
    this.sqliteResource = sqliteResource;
    this.sqliteFile = sqliteFile;
  }

  /**
   * Parses {@code jdbcUrl} (surrounding white space ignored, the scheme in any case).
   *
   * @param what what the URL names, for the error messages ("store", "projection")
   * @throws IllegalArgumentException if the URL is empty or of another database, or names a SQLite
   *     file with an invalid path; the message says what is expected and hides credentials
   */
  public static ProjectionUrl parse(String jdbcUrl, String what) {
    if (jdbcUrl == null || jdbcUrl.isBlank()) {
      throw new IllegalArgumentException("the " + what + " URL is empty: " + EXPECTED);
    }
    String url = jdbcUrl.strip();
    String lower = url.toLowerCase(Locale.ROOT);
    if (lower.startsWith(POSTGRESQL_PREFIX)) {
      return new ProjectionUrl(url, Kind.POSTGRESQL, false, false, null);
    }
    if (!lower.startsWith(SQLITE_PREFIX)) {
      throw new IllegalArgumentException(
          "unsupported " + what + " URL '" + describe(url) + "': " + EXPECTED);
    }
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
    boolean inMemory =
        file.isBlank()
            || file.equals(":memory:")
            || parameters.toLowerCase(Locale.ROOT).contains("mode=memory");
    boolean resource = !inMemory && file.startsWith(":resource:");
    if (inMemory || resource) {
      return new ProjectionUrl(url, Kind.SQLITE, inMemory, resource, null);
    }
    try {
      return new ProjectionUrl(url, Kind.SQLITE, false, false, Path.of(file));
    } catch (InvalidPathException e) {
      throw new IllegalArgumentException("invalid SQLite database path in '" + url + "'", e);
    }
  }

  /** The URL as given, without surrounding white space. */
  public String url() {
    return url;
  }

  /** Which database the URL names. */
  public Kind kind() {
    return kind;
  }

  /**
   * Whether this is a SQLite database in memory: one of its own for every connection, gone with it,
   * so neither a pool nor a reader in another process could share it.
   */
  public boolean sqliteInMemory() {
    return sqliteInMemory;
  }

  /** Whether this is a SQLite database in a classpath resource: nobody can write it. */
  public boolean sqliteResource() {
    return sqliteResource;
  }

  /**
   * The SQLite database file (the path before any {@code ?}, {@code file:} URIs included).
   *
   * @throws IllegalStateException if this is no SQLite file database (see {@link
   *     #sqliteInMemory()}, {@link #sqliteResource()})
   */
  public Path sqliteFile() {
    if (sqliteFile == null) {
      throw new IllegalStateException("not a SQLite database file: " + describe());
    }
    return sqliteFile;
  }

  /** {@link #describe(String)} of this URL. */
  public String describe() {
    return describe(url);
  }

  /**
   * The URL without what may be secret, for messages: the user info and the query (where PostgreSQL
   * URLs carry {@code password=}).
   */
  public static String describe(String url) {
    if (url == null) {
      return "null";
    }
    String result = url.strip();
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

  /**
   * A new connection that cannot write, for a reader. It never creates a database: a SQLite file
   * that is missing or a directory is an error naming the URL, not an empty projection, since a
   * wrong URL must not read as "nothing there" (the worker creates the database when it starts). A
   * SQLite connection waits up to {@value #SQLITE_BUSY_TIMEOUT_MILLIS} ms for a writer's lock; a
   * PostgreSQL one is read-only in autocommit too, not only in transactions.
   *
   * @throws ProjectionException if the SQLite database file is not there
   * @throws IllegalStateException if this is a SQLite database that is no file
   * @throws SQLException if the database cannot be reached
   */
  public Connection openReadOnly() throws SQLException {
    if (kind == Kind.POSTGRESQL) {
      Connection connection = DriverManager.getConnection(url, readOnlyPostgresql());
      try {
        connection.setReadOnly(true);
      } catch (SQLException | RuntimeException e) {
        closeAfter(connection, e);
        throw e;
      }
      return connection;
    }
    Path file = sqliteFile();
    if (!Files.isRegularFile(file)) {
      throw new ProjectionException(
          Files.isDirectory(file)
              ? "the projection " + describe() + " names a directory, not a SQLite database file"
              : "no projection database at "
                  + file
                  + " ("
                  + describe()
                  + "): the worker creates it"
                  + " when it starts; point the client at the worker's projection");
    }
    return DriverManager.getConnection(url, readOnlySqlite());
  }

  /**
   * {@code readOnlyMode=always}: the driver's default makes only explicit transactions read-only,
   * so a statement in autocommit could still write.
   */
  /** What readers' connections call themselves on the server ({@code pg_stat_activity}). */
  public static final String READER_APPLICATION_NAME = "durable-agents-reader";

  /**
   * The PostgreSQL driver's properties of a reader's connection: read-only ({@code readOnlyMode}),
   * named {@value #READER_APPLICATION_NAME} so a database administrator sees whose it is.
   */
  public static Properties readOnlyPostgresql() {
    Properties properties = new Properties();
    properties.setProperty("readOnlyMode", "always");
    properties.setProperty("ApplicationName", READER_APPLICATION_NAME);
    return properties;
  }

  private static Properties readOnlySqlite() {
    SQLiteConfig config = new SQLiteConfig();
    config.setReadOnly(true);
    config.setBusyTimeout(SQLITE_BUSY_TIMEOUT_MILLIS);
    return config.toProperties();
  }

  private static void closeAfter(Connection connection, Exception error) {
    try {
      connection.close();
    } catch (SQLException closing) {
      error.addSuppressed(closing);
    }
  }

  @Override
  public String toString() {
    return describe();
  }
}
