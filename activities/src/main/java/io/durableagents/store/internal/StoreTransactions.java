package io.durableagents.store.internal;

import io.durableagents.projection.ProjectionException;
import io.durableagents.store.StoreException;
import io.durableagents.store.StoreUnavailableException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * Runs the store's units of work on its data source: each in a transaction of its own when it
 * writes, retrying those that lose a race for the database (SQLite's single writer, a PostgreSQL
 * deadlock or serialization failure) a few times with a short randomized backoff. Owns no table;
 * the caller decides what one transaction holds.
 */
final class StoreTransactions {
  private static final int MAX_ATTEMPTS = 8;
  private static final long BACKOFF_MILLIS = 25;

  private final DataSource dataSource;

  /** SQLite's writing transactions, one at a time and committed in groups; null on PostgreSQL. */
  private final GroupCommit groupCommit;

  StoreTransactions(DataSource dataSource, GroupCommit groupCommit) {
    this.dataSource = dataSource;
    this.groupCommit = groupCommit;
  }

  /** Runs {@code work} in one transaction, retrying transient failures; {@code what} names it. */
  <T> T inTransaction(String what, SqlWork<T> work) {
    return run(what, true, work);
  }

  /** Runs {@code work} (reads) on a connection, retrying transient failures. */
  <T> T onConnection(String what, SqlWork<T> work) {
    return run(what, false, work);
  }

  /** Runs {@code work} on a connection, in a transaction if asked, retrying transient failures. */
  private <T> T run(String what, boolean transactional, SqlWork<T> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        return attempt(transactional, work);
      } catch (ProjectionException e) {
        // A row the read model cannot map: the store's error, with the same message and cause.
        throw new StoreException(e.getMessage(), e.getCause());
      } catch (SQLException e) {
        if (attempt < MAX_ATTEMPTS && TransientErrors.isTransient(e)) {
          backoff(what, attempt, e);
          continue;
        }
        String tries = attempt > 1 ? " (after " + attempt + " attempts)" : "";
        // Whatever the database says (unreachable, restarting, out of connections), the caller
        // may try again later: only the store's own checks (missing rows) are StoreExceptions.
        throw new StoreUnavailableException("cannot " + what + tries + ": " + e.getMessage(), e);
      }
    }
  }

  private <T> T attempt(boolean transactional, SqlWork<T> work) throws SQLException {
    if (!transactional || groupCommit == null) {
      return attemptUnlocked(transactional, work);
    }
    return groupCommit.run(work);
  }

  private <T> T attemptUnlocked(boolean transactional, SqlWork<T> work) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      if (!transactional) {
        return work.apply(connection);
      }
      boolean autoCommit = connection.getAutoCommit();
      connection.setAutoCommit(false);
      try {
        T result = work.apply(connection);
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException | Error e) {
        try {
          connection.rollback();
        } catch (SQLException rollbackError) {
          e.addSuppressed(rollbackError);
        }
        throw e;
      } finally {
        restoreAutoCommit(connection, autoCommit);
      }
    }
  }

  private static void restoreAutoCommit(Connection connection, boolean autoCommit) {
    try {
      connection.setAutoCommit(autoCommit);
    } catch (SQLException ignored) {
      // The connection is broken; the pool (or the next use) finds out. The outcome of the
      // transaction is already decided and reported.
    }
  }

  private static void backoff(String what, int attempt, SQLException cause) {
    long bound = BACKOFF_MILLIS << Math.min(attempt - 1, 5);
    try {
      Thread.sleep(bound / 2 + ThreadLocalRandom.current().nextLong(bound / 2 + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      StoreException interrupted =
          new StoreException("interrupted while retrying to " + what, cause);
      interrupted.addSuppressed(e);
      throw interrupted;
    }
  }
}
