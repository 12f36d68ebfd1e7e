package io.durableagents.client;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The read-only connections a {@link ProjectionReader} keeps between its reads, at most {@code max}
 * idle ones, the most recently used taken first. A read that finds none opens one at once, so a
 * database that is down fails that read at once with the driver's own error (a pool that waits for
 * a connection would hold every read of a back office for its timeout). A connection idle for more
 * than a second is checked before it is used again, and one idle for a minute is closed instead;
 * {@link #close} closes them all.
 */
final class KeptConnections implements AutoCloseable {
  private static final Duration CHECK_AFTER = Duration.ofSeconds(1);
  private static final Duration MAX_IDLE = Duration.ofMinutes(1);
  private static final int CHECK_TIMEOUT_SECONDS = 2;

  /** Opens a new connection. */
  @FunctionalInterface
  interface Opener {
    Connection open() throws SQLException;
  }

  private record Idle(Connection connection, long since) {}

  private final Opener opener;
  private final int max;
  private final Duration checkAfter;
  private final Duration maxIdle;
  private final Deque<Idle> idle = new ArrayDeque<>(); // guarded by this
  private boolean closed; // guarded by this

  KeptConnections(Opener opener, int max) {
    this(opener, max, CHECK_AFTER, MAX_IDLE);
  }

  KeptConnections(Opener opener, int max, Duration checkAfter, Duration maxIdle) {
    this.opener = opener;
    this.max = max;
    this.checkAfter = checkAfter;
    this.maxIdle = maxIdle;
  }

  /** A kept connection that still works, else a new one. */
  Connection take() throws SQLException {
    while (true) {
      Idle candidate;
      synchronized (this) {
        candidate = idle.pollFirst();
      }
      if (candidate == null) {
        return opener.open();
      }
      long idleNanos = System.nanoTime() - candidate.since();
      if (idleNanos < maxIdle.toNanos()
          && (idleNanos < checkAfter.toNanos() || isValid(candidate.connection()))) {
        return candidate.connection();
      }
      closeQuietly(candidate.connection());
    }
  }

  /** Takes back a connection whose read went well: kept if there is room, else closed. */
  void give(Connection connection) {
    boolean kept;
    synchronized (this) {
      kept = !closed && idle.size() < max;
      if (kept) {
        idle.addFirst(new Idle(connection, System.nanoTime()));
      }
    }
    if (!kept) {
      closeQuietly(connection);
    }
  }

  /** Connections kept now (for tests). */
  synchronized int idleCount() {
    return idle.size();
  }

  @Override
  public void close() {
    List<Idle> all;
    synchronized (this) {
      closed = true;
      all = new ArrayList<>(idle);
      idle.clear();
    }
    all.forEach(entry -> closeQuietly(entry.connection()));
  }

  private static boolean isValid(Connection connection) {
    try {
      return connection.isValid(CHECK_TIMEOUT_SECONDS);
    } catch (SQLException e) {
      return false;
    }
  }

  static void closeQuietly(Connection connection) {
    try {
      connection.close();
    } catch (SQLException e) {
      // Already broken: nothing to give back.
    }
  }
}
