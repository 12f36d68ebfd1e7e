package io.durableagents.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.session.RunStatus;
import io.durableagents.store.internal.CheckpointStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store contract on a real PostgreSQL server (embedded binaries, started once for the class),
 * each test in a fresh schema; plus what is particular to PostgreSQL.
 */
class PostgresAgentStoreTest extends AgentStoreContract {
  private static TestPostgres postgres;

  private String url;

  @BeforeAll
  static void startPostgres() {
    postgres = TestPostgres.start();
  }

  @AfterAll
  static void stopPostgres() {
    if (postgres != null) {
      postgres.close();
    }
  }

  /** Every store of one test is on the same fresh schema (a new instance per test method). */
  @Override
  protected CheckpointStore openStore(StoreOptions options) {
    if (url == null) {
      url = postgres.newSchema();
    }
    return CheckpointStore.of(AgentStores.open(url, options));
  }

  @Override
  protected void executeSql(String sql, Object... parameters) throws Exception {
    TestSql.execute(url, sql, parameters);
  }

  @Test
  void theSchemaIsMigratedIntoTheConnectionsSchema_withItsOwnFlywayTable() throws Exception {
    try (Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement();
        ResultSet tables =
            statement.executeQuery(
                "SELECT table_name FROM information_schema.tables"
                    + " WHERE table_schema = current_schema() ORDER BY table_name")) {
      List<String> names = new ArrayList<>();
      while (tables.next()) {
        names.add(tables.getString(1));
      }
      assertThat(names)
          .containsExactly(
              "agent_approvals",
              "agent_checkpoints",
              "agent_definitions",
              "agent_messages",
              "agent_runs",
              "agent_sessions",
              "agent_steps",
              "agent_store_schema_history",
              "agent_superseded_messages");
    }
  }

  @Test
  void twoStoresOnOneDatabase_likeTwoWorkers_shareEverySession() throws Exception {
    CheckpointStore second = storeWithHistoryLimit(StoreOptions.DEFAULT_HISTORY_LIMIT);
    int sessions = 6;
    int steps = 10;
    ExecutorService pool = Executors.newFixedThreadPool(sessions);
    List<String> ids = new ArrayList<>();
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Void>> done = new ArrayList<>();
      for (int i = 0; i < sessions; i++) {
        String session = newSessionId();
        ids.add(session);
        Callable<Void> writer =
            () -> {
              start.await();
              for (int step = 0; step < steps; step++) {
                // Alternate workers, and retry every save on the other one, as Temporal may.
                CheckpointStore one = step % 2 == 0 ? store : second;
                CheckpointStore other = one == store ? second : store;
                var save =
                    save(
                        session,
                        "exec-1",
                        1,
                        step,
                        RunStatus.IN_PROGRESS,
                        null,
                        step,
                        List.of(io.durableagents.conversation.Message.user(session + " #" + step)),
                        io.durableagents.conversation.Usage.ZERO,
                        1_000L + step);
                one.saveCheckpoint(save);
                other.saveCheckpoint(save);
              }
              return null;
            };
        done.add(pool.submit(writer));
      }
      start.countDown();
      for (Future<Void> future : done) {
        future.get(2, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    for (String session : ids) {
      assertThat(store.readMessages(session, steps)).hasSize(steps);
      assertThat(second.history(session, 0)).hasSize(steps);
      assertThat(second.session(session).orElseThrow().lastStep()).isEqualTo(steps - 1);
    }
  }
}
