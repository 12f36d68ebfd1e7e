package io.durableagents.store.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteDataSource;

/** Group commit on a real SQLite file: shared commits, failures kept apart, nothing lost. */
class GroupCommitTest {
  @TempDir Path dir;
  private final AtomicInteger commits = new AtomicInteger();
  private volatile boolean failCommits;
  private DataSource dataSource;
  private GroupCommit groupCommit;
  private final ExecutorService pool = Executors.newFixedThreadPool(16);

  @BeforeEach
  void open() throws SQLException {
    SQLiteDataSource sqlite = new SQLiteDataSource();
    sqlite.setUrl("jdbc:sqlite:" + dir.resolve("group.db"));
    sqlite.setJournalMode("WAL");
    try (Connection connection = sqlite.getConnection();
        Statement create = connection.createStatement()) {
      create.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY, owner TEXT NOT NULL)");
    }
    dataSource = countingCommits(sqlite);
    groupCommit = new GroupCommit(dataSource);
  }

  @AfterEach
  void close() {
    pool.shutdownNow();
  }

  @Test
  void transactionsThatQueueWhileOneWrites_shareACommit_andAllLand() throws Exception {
    CountDownLatch othersQueued = new CountDownLatch(1);
    Future<Integer> first = firstWritingUntil(othersQueued);
    List<Future<Integer>> others = new ArrayList<>();
    for (int i = 1; i <= 12; i++) {
      int id = i;
      others.add(submit(connection -> insert(connection, id, "other")));
    }
    awaitQueued(12); // the twelve queue behind the first
    othersQueued.countDown();

    assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo(1);
    for (Future<Integer> other : others) {
      assertThat(other.get(5, TimeUnit.SECONDS)).isEqualTo(1);
    }
    assertThat(count("SELECT COUNT(*) FROM rows")).isEqualTo(13);
    assertThat(commits.get())
        .as("one commit for the first, one for the twelve queued behind it")
        .isEqualTo(2);
  }

  @Test
  void aFailingTransactionOfAGroup_isRolledBackAlone_andItsCallerGetsTheFailure() throws Exception {
    CountDownLatch othersQueued = new CountDownLatch(1);
    Future<Integer> first = firstWritingUntil(othersQueued);
    Future<Integer> good = submit(connection -> insert(connection, 1, "good"));
    Future<Integer> bad =
        submit(
            connection -> {
              insert(connection, 2, "bad");
              throw new IllegalStateException("bad transaction");
            });
    Future<Integer> violating = submit(connection -> insert(connection, 3, null));
    awaitQueued(3);
    othersQueued.countDown();

    first.get(5, TimeUnit.SECONDS);
    assertThat(good.get(5, TimeUnit.SECONDS)).isEqualTo(1);
    assertThatThrownBy(() -> bad.get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> violating.get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(SQLException.class);
    assertThat(count("SELECT COUNT(*) FROM rows WHERE owner IN ('first', 'good')")).isEqualTo(2);
    assertThat(count("SELECT COUNT(*) FROM rows")).as("nothing of the failed two").isEqualTo(2);
    assertThat(commits.get()).as("the first, then one for the group of three").isEqualTo(2);
  }

  @Test
  void aTransientFailureInAGroup_failsTheWholeGroup_soThatEveryCallerRetries() throws Exception {
    CountDownLatch othersQueued = new CountDownLatch(1);
    Future<Integer> first = firstWritingUntil(othersQueued);
    Future<Integer> good = submit(connection -> insert(connection, 1, "good"));
    awaitQueued(1);
    Future<Integer> busy =
        submit(
            connection -> {
              throw new SQLException("[SQLITE_BUSY] The database file is locked", null, 5);
            });
    awaitQueued(2);
    othersQueued.countDown();

    first.get(5, TimeUnit.SECONDS);
    assertThatThrownBy(() -> good.get(5, TimeUnit.SECONDS))
        .hasRootCauseMessage("[SQLITE_BUSY] The database file is locked");
    assertThatThrownBy(() -> busy.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(SQLException.class);
    assertThat(count("SELECT COUNT(*) FROM rows"))
        .as("only the first, committed alone")
        .isEqualTo(1);
  }

  @Test
  void aFailedCommit_failsEveryCallerOfTheGroup_andWritesNothing() {
    failCommits = true;
    assertThatThrownBy(() -> groupCommit.run(connection -> insert(connection, 7, "lost")))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("commit refused");
    failCommits = false;
    assertThat(count("SELECT COUNT(*) FROM rows")).isZero();
  }

  /**
   * A transaction that holds the writer (row 0, "first") until {@code released}; returns once it
   * does.
   */
  private Future<Integer> firstWritingUntil(CountDownLatch released) throws InterruptedException {
    CountDownLatch writing = new CountDownLatch(1);
    Future<Integer> first =
        submit(
            connection -> {
              writing.countDown();
              await(released);
              return insert(connection, 0, "first");
            });
    assertThat(writing.await(5, TimeUnit.SECONDS)).isTrue();
    return first;
  }

  /** Runs {@code work} through the group commit on a thread of the pool. */
  private Future<Integer> submit(SqlWork<Integer> work) {
    return pool.submit(() -> groupCommit.run(work));
  }

  private static int insert(Connection connection, int id, String owner) throws SQLException {
    try (Statement insert = connection.createStatement()) {
      return insert.executeUpdate(
          "INSERT INTO rows (id, owner) VALUES ("
              + id
              + ", "
              + (owner == null ? "NULL" : "'" + owner + "'")
              + ")");
    }
  }

  private void awaitQueued(int transactions) {
    Awaitility.await("%d transactions queued".formatted(transactions))
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(10))
        .until(() -> groupCommit.queued() >= transactions);
    assertThat(groupCommit.queued()).isEqualTo(transactions);
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private int count(String sql) {
    try (Connection connection = dataSource.getConnection();
        Statement select = connection.createStatement();
        ResultSet row = select.executeQuery(sql)) {
      row.next();
      return row.getInt(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Connections whose commits are counted, and refused while {@link #failCommits} is set. */
  private DataSource countingCommits(SQLiteDataSource sqlite) {
    return (DataSource)
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object result = method.invoke(sqlite, args);
              if (!method.getName().equals("getConnection")) {
                return result;
              }
              Connection connection = (Connection) result;
              return Proxy.newProxyInstance(
                  getClass().getClassLoader(),
                  new Class<?>[] {Connection.class},
                  (p, m, a) -> {
                    if (m.getName().equals("commit")) {
                      if (failCommits) {
                        throw new SQLException("commit refused");
                      }
                      commits.incrementAndGet();
                    }
                    try {
                      return m.invoke(connection, a);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                      throw e.getCause();
                    }
                  });
            });
  }
}
