package io.durableagents.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The connections a reader keeps between reads, on real (in-memory SQLite) connections. */
class KeptConnectionsTest {
  private final List<Connection> opened = new ArrayList<>();

  private Connection open() throws SQLException {
    Connection connection = DriverManager.getConnection("jdbc:sqlite::memory:");
    opened.add(connection);
    return connection;
  }

  @AfterEach
  void closeAll() throws SQLException {
    for (Connection connection : opened) {
      connection.close();
    }
  }

  @Test
  void aConnectionGivenBack_isTheOneTheNextReadTakes() throws SQLException {
    try (KeptConnections kept = new KeptConnections(this::open, 4)) {
      Connection first = kept.take();
      kept.give(first);
      assertThat(kept.take()).isSameAs(first);
      assertThat(opened).hasSize(1);
    }
  }

  @Test
  void atMostMaxAreKept_andTheRestAreClosed() throws SQLException {
    try (KeptConnections kept = new KeptConnections(this::open, 2)) {
      List<Connection> inUse = List.of(kept.take(), kept.take(), kept.take());
      inUse.forEach(kept::give);
      assertThat(kept.idleCount()).isEqualTo(2);
      assertThat(inUse.stream().filter(KeptConnectionsTest::isClosed)).hasSize(1);
    }
  }

  @Test
  void closing_closesTheKeptOnes_andThoseGivenBackLater() throws SQLException {
    KeptConnections kept = new KeptConnections(this::open, 4);
    Connection idle = kept.take();
    Connection busy = kept.take();
    kept.give(idle);
    kept.close();
    assertThat(idle.isClosed()).isTrue();
    kept.give(busy);
    assertThat(busy.isClosed()).isTrue();
    assertThat(kept.idleCount()).isZero();
  }

  @Test
  void aDatabaseThatCannotBeReached_failsTheReadAtOnce() {
    SQLException refused = new SQLException("Connection refused", "08001");
    try (KeptConnections kept =
        new KeptConnections(
            () -> {
              throw refused;
            },
            4)) {
      long start = System.nanoTime();
      assertThatThrownBy(kept::take).isSameAs(refused);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
    }
  }

  @Test
  void aKeptConnectionThatBroke_isReplacedWhenChecked() throws SQLException {
    try (KeptConnections kept =
        new KeptConnections(this::open, 4, Duration.ZERO, Duration.ofMinutes(1))) {
      Connection broken = kept.take();
      kept.give(broken);
      broken.close(); // as a server restart would leave it
      Connection next = kept.take();
      assertThat(next).isNotSameAs(broken);
      assertThat(next.isValid(1)).isTrue();
    }
  }

  @Test
  void aConnectionIdleTooLong_isClosedInsteadOfUsed() throws SQLException {
    try (KeptConnections kept =
        new KeptConnections(this::open, 4, Duration.ofMinutes(1), Duration.ZERO)) {
      Connection old = kept.take();
      kept.give(old);
      assertThat(kept.take()).isNotSameAs(old);
      assertThat(old.isClosed()).isTrue();
    }
  }

  private static boolean isClosed(Connection connection) {
    try {
      return connection.isClosed();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
