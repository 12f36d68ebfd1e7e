package io.durableagents.projection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.durableagents.projection.ProjectionUrl.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProjectionUrlTest {
  @TempDir Path dir;

  @Test
  void sqliteUrlsNameTheirFile_withoutParameters_andFileUris() {
    assertThat(sqliteFile("jdbc:sqlite:data/p.db")).isEqualTo(Path.of("data/p.db"));
    assertThat(sqliteFile("  jdbc:sqlite:/var/agents/p.db?synchronous=NORMAL&x=1 "))
        .isEqualTo(Path.of("/var/agents/p.db"));
    assertThat(sqliteFile("JDBC:SQLITE:p.db")).isEqualTo(Path.of("p.db"));
    assertThat(sqliteFile("jdbc:sqlite:file:p.db?cache=shared")).isEqualTo(Path.of("p.db"));
    assertThat(sqliteFile("jdbc:sqlite:file:///var/agents/p.db"))
        .isEqualTo(Path.of("/var/agents/p.db"));

    ProjectionUrl url = ProjectionUrl.parse(" jdbc:sqlite:p.db?synchronous=NORMAL ", "store");
    assertThat(url.kind()).isEqualTo(Kind.SQLITE);
    assertThat(url.url()).isEqualTo("jdbc:sqlite:p.db?synchronous=NORMAL");
    assertThat(url.sqliteInMemory()).isFalse();
    assertThat(url.sqliteResource()).isFalse();
  }

  @Test
  void inMemoryAndResourceDatabasesAreNoFile() {
    for (String memory :
        List.of(
            "jdbc:sqlite:",
            "jdbc:sqlite::memory:",
            "jdbc:sqlite:file:x?mode=memory",
            "jdbc:sqlite:?a=b")) {
      ProjectionUrl url = ProjectionUrl.parse(memory, "store");
      assertThat(url.sqliteInMemory()).as(memory).isTrue();
      assertThat(url.sqliteResource()).as(memory).isFalse();
      assertThatThrownBy(url::sqliteFile).isInstanceOf(IllegalStateException.class);
    }
    ProjectionUrl resource = ProjectionUrl.parse("jdbc:sqlite::resource:db/p.db", "store");
    assertThat(resource.sqliteResource()).isTrue();
    assertThat(resource.sqliteInMemory()).isFalse();
    assertThatThrownBy(resource::sqliteFile).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void postgresqlUrlsAreKeptAsGiven() {
    String given = "jdbc:PostgreSQL://db.internal:5433/agents?user=a&password=s3cret";
    ProjectionUrl url = ProjectionUrl.parse(given, "store");
    assertThat(url.kind()).isEqualTo(Kind.POSTGRESQL);
    assertThat(url.url()).isEqualTo(given);
    assertThat(url.describe()).isEqualTo("jdbc:PostgreSQL://db.internal:5433/agents?...");
    assertThat(url).hasToString("jdbc:PostgreSQL://db.internal:5433/agents?...");
    assertThatThrownBy(url::sqliteFile).isInstanceOf(IllegalStateException.class);
    assertThat(Kind.POSTGRESQL.driverClassName()).isEqualTo("org.postgresql.Driver");
    assertThat(Kind.SQLITE.driverClassName()).isEqualTo("org.sqlite.JDBC");
  }

  @Test
  void otherUrlsAreRefused_sayingWhatIsExpected_withoutCredentials() {
    String mysql = "jdbc:mysql://alice:s3cret@db/agents?password=s3cret";
    assertThatThrownBy(() -> ProjectionUrl.parse(mysql, "store"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "unsupported store URL 'jdbc:mysql://***@db/agents?...': expected jdbc:sqlite:PATH (a"
                + " database file) or jdbc:postgresql://HOST[:PORT]/DATABASE");
    assertThatThrownBy(() -> ProjectionUrl.parse(" ", "projection"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("the projection URL is empty: expected jdbc:sqlite:PATH");
    assertThatThrownBy(() -> ProjectionUrl.parse(null, "store"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("the store URL is empty");
    assertThatThrownBy(() -> ProjectionUrl.parse("jdbc:sqlite:bad\0path.db", "store"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("invalid SQLite database path in 'jdbc:sqlite:bad\0path.db'");
    assertThat(ProjectionUrl.describe(null)).isEqualTo("null");
  }

  @Test
  void readingAMissingFile_isAnErrorNamingIt_andCreatesNothing() {
    Path file = dir.resolve("not-yet").resolve("projection.db");
    ProjectionUrl url =
        ProjectionUrl.parse("jdbc:sqlite:" + file + "?synchronous=NORMAL", "projection");
    assertThatThrownBy(url::openReadOnly)
        .isInstanceOf(ProjectionException.class)
        .hasMessage(
            "no projection database at "
                + file
                + " (jdbc:sqlite:"
                + file
                + "?...): the worker"
                + " creates it when it starts; point the client at the worker's projection");
    assertThat(file.getParent()).doesNotExist();
  }

  @Test
  void readingADirectory_isAnErrorNamingIt() {
    assertThatThrownBy(ProjectionUrl.parse("jdbc:sqlite:" + dir, "projection")::openReadOnly)
        .isInstanceOf(ProjectionException.class)
        .hasMessage(
            "the projection jdbc:sqlite:" + dir + " names a directory, not a SQLite database file");
  }

  @Test
  void aReadOnlySqliteConnection_refusesWrites_andWaitsForLocks() throws Exception {
    Path file = dir.resolve("p.db");
    try (Connection writer = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement statement = writer.createStatement()) {
      statement.execute("CREATE TABLE agent_sessions (session_id TEXT)");
    }
    long size = Files.size(file);
    ProjectionUrl url = ProjectionUrl.parse("jdbc:sqlite:" + file, "projection");
    try (Connection connection = url.openReadOnly();
        Statement statement = connection.createStatement()) {
      assertThatThrownBy(() -> statement.execute("INSERT INTO agent_sessions VALUES ('x')"))
          .isInstanceOf(SQLException.class);
      try (ResultSet timeout = statement.executeQuery("PRAGMA busy_timeout")) {
        assertThat(timeout.next()).isTrue();
        assertThat(timeout.getInt(1)).isEqualTo(ProjectionUrl.SQLITE_BUSY_TIMEOUT_MILLIS);
      }
    }
    assertThat(Files.size(file)).isEqualTo(size);
  }

  private static Path sqliteFile(String url) {
    return ProjectionUrl.parse(url, "projection").sqliteFile();
  }
}
