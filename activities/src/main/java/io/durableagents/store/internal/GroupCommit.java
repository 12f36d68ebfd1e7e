package io.durableagents.store.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;

/**
 * Writing transactions for a database with one writer at a time (SQLite): they run one after the
 * other, and those that queued up while one was writing are committed together.
 *
 * <p>Committing (an fsync) is most of a small transaction's cost; sessions writing at the same time
 * share it instead of queueing for one each. Each transaction of a group runs inside a savepoint,
 * so one that fails is rolled back alone and its caller gets the failure; a transient failure (the
 * database busy with another process) or a failed commit fails every caller of the group (each
 * retries, as after any failed transaction). No caller returns before the commit that holds its
 * writes. Waiting is fair: first come, first written.
 */
public final class GroupCommit {
  /** Transactions committed together at most: bounds how long the transaction holds the lock. */
  static final int MAX_GROUP = 128;

  private final DataSource dataSource;
  private final ReentrantLock writer = new ReentrantLock(true);
  private final ArrayDeque<Pending<?>> queue = new ArrayDeque<>();

  public GroupCommit(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Runs {@code work} in a transaction, possibly together with others, and returns once committed.
   */
  public <T> T run(SqlWork<T> work) throws SQLException {
    Pending<T> mine = new Pending<>(work);
    synchronized (queue) {
      queue.add(mine);
    }
    writer.lock();
    try {
      // The writer before us may have committed ours with its group; else we write the next one.
      while (!mine.done) {
        write(nextGroup());
      }
    } finally {
      writer.unlock();
    }
    return mine.result();
  }

  /** Transactions queued and not yet taken into a group. */
  int queued() {
    synchronized (queue) {
      return queue.size();
    }
  }

  private List<Pending<?>> nextGroup() {
    List<Pending<?>> group = new ArrayList<>();
    synchronized (queue) {
      while (!queue.isEmpty() && group.size() < MAX_GROUP) {
        group.add(queue.poll());
      }
    }
    return group;
  }

  private void write(List<Pending<?>> group) {
    try (Connection connection = dataSource.getConnection()) {
      boolean autoCommit = connection.getAutoCommit();
      connection.setAutoCommit(false);
      try {
        boolean alone = group.size() == 1;
        for (Pending<?> pending : group) {
          Savepoint savepoint = alone ? null : connection.setSavepoint();
          try {
            pending.apply(connection);
            if (savepoint != null) {
              connection.releaseSavepoint(savepoint);
            }
          } catch (SQLException | RuntimeException e) {
            if (alone || (e instanceof SQLException sql && TransientErrors.isTransient(sql))) {
              // Another process holds the database: the rest of the group would wait out the
              // busy timeout one by one. Give up the group; every caller retries.
              throw e;
            }
            connection.rollback(savepoint);
            pending.failure = e;
          }
        }
        connection.commit();
      } catch (SQLException | RuntimeException | Error e) {
        try {
          connection.rollback();
        } catch (SQLException rollbackError) {
          e.addSuppressed(rollbackError);
        }
        failAll(group, e);
        if (e instanceof Error error) {
          throw error;
        }
      } finally {
        try {
          connection.setAutoCommit(autoCommit);
        } catch (SQLException ignored) {
          // The connection is broken; the pool finds out. The group's outcome is decided.
        }
      }
    } catch (SQLException e) {
      failAll(group, e);
    } finally {
      group.forEach(pending -> pending.done = true);
    }
  }

  private static void failAll(List<Pending<?>> group, Throwable cause) {
    for (Pending<?> pending : group) {
      if (pending.failure == null) {
        pending.failure = cause;
      }
    }
  }

  /** One caller's transaction; its fields are handed over under the writer lock. */
  private static final class Pending<T> {
    private final SqlWork<T> work;
    private T value;
    private Throwable failure;
    private boolean done;

    Pending(SqlWork<T> work) {
      this.work = work;
    }

    void apply(Connection connection) throws SQLException {
      value = work.apply(connection);
    }

    T result() throws SQLException {
      if (failure instanceof SQLException sql) {
        throw sql;
      }
      if (failure instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (failure instanceof Error error) {
        throw error;
      }
      return value;
    }
  }
}
