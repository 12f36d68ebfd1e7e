package io.durableagents.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.durableagents.conversation.Message;
import io.durableagents.session.RunStatus;
import io.durableagents.store.internal.CheckpointStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store contract on a real SQLite file, plus what is particular to opening SQLite. */
class JdbcAgentStoreTest extends AgentStoreContract {

  @TempDir Path dir;

  @Override
  protected CheckpointStore openStore(StoreOptions options) {
    return CheckpointStore.of(AgentStores.open(sqliteUrl(dir.resolve("store.db")), options));
  }

  @Override
  protected void executeSql(String sql, Object... parameters) throws Exception {
    TestSql.execute(sqliteUrl(dir.resolve("store.db")), sql, parameters);
  }

  private static String sqliteUrl(Path file) {
    return "jdbc:sqlite:" + file;
  }

  @Test
  void createsTheDirectoryOfTheDatabaseFile() {
    Path file = dir.resolve("not").resolve("yet").resolve("there.db");
    try (CheckpointStore created = CheckpointStore.of(AgentStores.open(sqliteUrl(file)))) {
      assertThat(created.session("nobody")).isEmpty();
    }
    assertThat(file).isRegularFile();
  }

  @Test
  void usesWalModeAndKeepsDataAcrossReopening() throws Exception {
    Path file = dir.resolve("reopen.db");
    String session = newSessionId();
    List<Message> transcript = conversation();
    try (CheckpointStore first = CheckpointStore.of(AgentStores.open(sqliteUrl(file)))) {
      first.saveCheckpoint(save(session, "exec-1", 1, 0, RunStatus.IDLE, null, 0, transcript));
    }
    try (CheckpointStore again = CheckpointStore.of(AgentStores.open(sqliteUrl(file)))) {
      assertThat(again.readMessages(session, transcript.size()))
          .containsExactlyElementsOf(transcript);
    }
    try (Connection connection = DriverManager.getConnection(sqliteUrl(file));
        Statement statement = connection.createStatement();
        ResultSet mode = statement.executeQuery("PRAGMA journal_mode")) {
      assertThat(mode.next()).isTrue();
      assertThat(mode.getString(1)).isEqualToIgnoringCase("wal");
    }
  }

  @Test
  void aStoreOnAGivenDataSourceMigratesItAndLeavesItOpen() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(sqliteUrl(dir.resolve("given.db")));
    config.setMaximumPoolSize(2);
    try (HikariDataSource dataSource = new HikariDataSource(config)) {
      String session = newSessionId();
      try (CheckpointStore onGiven = CheckpointStore.of(AgentStores.open(dataSource))) {
        onGiven.saveCheckpoint(
            save(session, "exec-1", 1, 0, RunStatus.IDLE, null, 0, conversation().subList(0, 1)));
      }
      assertThat(dataSource.isClosed()).isFalse();
      try (CheckpointStore again = CheckpointStore.of(AgentStores.open(dataSource))) {
        assertThat(again.session(session)).isPresent();
      }
    }
  }

  @Test
  void unsupportedUrlsGetAClearError() {
    assertThatThrownBy(
            () -> CheckpointStore.of(AgentStores.open("jdbc:mysql://db.example:3306/agents")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unsupported store URL")
        .hasMessageContaining("jdbc:sqlite:")
        .hasMessageContaining("jdbc:postgresql:");
    assertThatThrownBy(() -> CheckpointStore.of(AgentStores.open("  ")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jdbc:sqlite:");
    assertThatThrownBy(() -> CheckpointStore.of(AgentStores.open((String) null)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CheckpointStore.of(AgentStores.open("jdbc:sqlite::memory:")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("in-memory");
    assertThatThrownBy(() -> CheckpointStore.of(AgentStores.open("jdbc:sqlite:")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void errorsDoNotRevealCredentials() {
    assertThatThrownBy(
            () ->
                CheckpointStore.of(
                    AgentStores.open(
                        "jdbc:mysql://alice:s3cret@db.example/agents?password=s3cret")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("s3cret");
  }

  @Test
  void closingTwiceIsHarmless() {
    CheckpointStore extra =
        CheckpointStore.of(AgentStores.open(sqliteUrl(dir.resolve("twice.db"))));
    extra.close();
    extra.close();
    assertThatThrownBy(() -> extra.session("any")).isInstanceOf(StoreException.class);
  }

  @Test
  void theDatabaseFileIsCreatedWhereTheUrlSays() {
    assertThat(Files.exists(dir.resolve("store.db"))).isTrue();
  }
}
