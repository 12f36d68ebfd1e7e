package io.durableagents.projection;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The read model on a real PostgreSQL server (embedded binaries, started once for the class), each
 * database a fresh schema.
 */
class PostgresProjectionQueriesTest extends ProjectionQueriesContract {
  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static EmbeddedPostgres postgres;

  @BeforeAll
  static void startPostgres() throws IOException {
    postgres = EmbeddedPostgres.builder().setOutputRedirector(Redirect.DISCARD).start();
  }

  @AfterAll
  static void stopPostgres() throws IOException {
    if (postgres != null) {
      postgres.close();
    }
  }

  @Override
  protected ProjectionUrl.Kind kind() {
    return ProjectionUrl.Kind.POSTGRESQL;
  }

  @Override
  protected String newDatabaseUrl() {
    String server = "jdbc:postgresql://localhost:" + postgres.getPort() + "/postgres?user=postgres";
    String schema = "projection_" + SCHEMAS.incrementAndGet();
    try (Connection connection = DriverManager.getConnection(server);
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE SCHEMA " + schema);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create schema " + schema, e);
    }
    return server + "&currentSchema=" + schema;
  }
}
