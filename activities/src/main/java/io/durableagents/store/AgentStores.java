package io.durableagents.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.durableagents.projection.ProjectionUrl;
import io.durableagents.store.internal.JdbcAgentStore;
import io.durableagents.store.internal.Migrations;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/** Opens {@link AgentStore}s: connects, pools, applies the schema migrations. */
public final class AgentStores {
  static final int SQLITE_POOL_SIZE = 4;
  static final int POSTGRESQL_POOL_SIZE = 10;

  /**
   * How long a PostgreSQL store call waits for a connection. While the database is down every call
   * fails after it ({@link StoreUnavailableException}): well inside the 10 s heartbeat timeout of
   * model turns and tool calls, so that their attempt ends with {@code store_unavailable}, which
   * the workflow waits out, instead of timing out, which would spend their bounded retries.
   */
  static final Duration POSTGRESQL_CONNECTION_TIMEOUT = Duration.ofSeconds(5);

  private AgentStores() {}

  /**
   * Opens the store at {@code jdbcUrl}, migrating its schema; closing the store closes its
   * connection pool.
   *
   * <ul>
   *   <li>{@code jdbc:sqlite:PATH}: a database file, created with its directory if missing, in WAL
   *       mode with a busy timeout of 10 s;
   *   <li>{@code jdbc:postgresql://HOST[:PORT]/DATABASE[?user=..&password=..]}: needs the
   *       PostgreSQL JDBC driver ({@code org.postgresql:postgresql}) on the classpath.
   * </ul>
   *
   * @throws IllegalArgumentException if the URL is not one of those
   * @throws StoreException if the driver is missing, or the database cannot be reached or migrated
   */
  public static AgentStore open(String jdbcUrl) {
    return open(jdbcUrl, StoreOptions.getDefaultInstance());
  }

  /**
   * {@link #open(String)} with {@code options} (the history limit).
   *
   * <pre>{@code
   * AgentStore store = AgentStores.open(
   *     "jdbc:postgresql://db.internal/agents?user=agents&password=...",
   *     StoreOptions.newBuilder().setHistoryLimit(20).build());
   * }</pre>
   */
  public static AgentStore open(String jdbcUrl, StoreOptions options) {
    Objects.requireNonNull(options, "options");
    ProjectionUrl parsed = ProjectionUrl.parse(jdbcUrl, "store");
    String url = parsed.url();
    ProjectionUrl.Kind kind = parsed.kind();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    switch (kind) {
      case SQLITE -> {
        createParentDirectory(sqliteFile(parsed));
        requireDriver(kind, "the SQLite JDBC driver (org.xerial:sqlite-jdbc)");
        config.setDriverClassName(kind.driverClassName());
        config.setPoolName("durable-agents-store-sqlite");
        config.setMaximumPoolSize(SQLITE_POOL_SIZE);
        config.setMinimumIdle(1);
        config.addDataSourceProperty("journal_mode", "WAL");
        config.addDataSourceProperty(
            "busy_timeout", String.valueOf(ProjectionUrl.SQLITE_BUSY_TIMEOUT_MILLIS));
        config.addDataSourceProperty("foreign_keys", "true");
      }
      case POSTGRESQL -> {
        requireDriver(kind, "the PostgreSQL JDBC driver (org.postgresql:postgresql)");
        config.setDriverClassName(kind.driverClassName());
        config.setPoolName("durable-agents-store-postgresql");
        config.setMaximumPoolSize(POSTGRESQL_POOL_SIZE);
        config.setConnectionTimeout(POSTGRESQL_CONNECTION_TIMEOUT.toMillis());
      }
    }

    HikariDataSource pool;
    try {
      pool = new HikariDataSource(config);
    } catch (RuntimeException e) {
      throw new StoreException(
          "cannot connect to the store at " + parsed.describe() + ": " + rootMessage(e), e);
    }
    try {
      migrate(pool, url);
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
    return new JdbcAgentStore(pool, true, options, kind == ProjectionUrl.Kind.SQLITE);
  }

  /**
   * A store on connections from {@code dataSource}, migrating its schema first. Closing the store
   * leaves the data source open: its owner closes it.
   *
   * @throws StoreException if the database cannot be migrated
   */
  public static AgentStore open(DataSource dataSource) {
    return open(dataSource, StoreOptions.getDefaultInstance());
  }

  /** {@link #open(DataSource)} with {@code options} (the history limit). */
  public static AgentStore open(DataSource dataSource, StoreOptions options) {
    Objects.requireNonNull(dataSource, "dataSource");
    Objects.requireNonNull(options, "options");
    migrate(dataSource, "the given data source");
    return new JdbcAgentStore(dataSource, false, options);
  }

  private static void migrate(DataSource dataSource, String what) {
    try {
      Migrations.migrate(dataSource);
    } catch (RuntimeException e) {
      throw new StoreException(
          "cannot migrate the store schema at "
              + ProjectionUrl.describe(what)
              + ": "
              + rootMessage(e),
          e);
    }
  }

  /**
   * The database file of a SQLite store. In-memory and classpath-resource databases are refused:
   * every pooled connection would see a database of its own, or none could write.
   */
  private static Path sqliteFile(ProjectionUrl url) {
    if (url.sqliteInMemory()) {
      throw new IllegalArgumentException(
          "the SQLite store needs a database file, got '"
              + url.url()
              + "': an in-memory database is not shared between connections and dies with them");
    }
    if (url.sqliteResource()) {
      throw new IllegalArgumentException(
          "the SQLite store needs a writable database file, got the resource '" + url.url() + "'");
    }
    return url.sqliteFile();
  }

  private static void createParentDirectory(Path file) {
    Path parent = file.toAbsolutePath().getParent();
    if (parent == null || Files.isDirectory(parent)) {
      return;
    }
    try {
      Files.createDirectories(parent);
    } catch (IOException e) {
      throw new StoreException("cannot create the directory " + parent + " of the SQLite store", e);
    }
  }

  private static void requireDriver(ProjectionUrl.Kind kind, String description) {
    try {
      Class.forName(kind.driverClassName(), false, AgentStores.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new StoreException(
          description + " is not on the classpath: add it to the application to use this store URL",
          e);
    }
  }

  private static String rootMessage(Throwable error) {
    Throwable root = error;
    for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < 16; depth++) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
  }
}
