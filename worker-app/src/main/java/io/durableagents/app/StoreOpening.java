package io.durableagents.app;

import io.durableagents.projection.ProjectionUrl;
import io.durableagents.store.AgentStore;
import io.durableagents.store.AgentStores;
import io.durableagents.store.StoreOptions;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a worker's store, waiting while its database cannot be reached: a worker (re)started during
 * a database outage waits for it, as the sessions it serves do, instead of exiting. Only a
 * connection failure (SQL state class {@code 08}) is waited out; a wrong password, a missing
 * database or a file that is no SQLite database fails at once.
 */
final class StoreOpening {
  private static final Logger log = LoggerFactory.getLogger(StoreOpening.class);
  static final Duration FIRST_WAIT = Duration.ofSeconds(1);
  static final Duration LONGEST_WAIT = Duration.ofSeconds(30);

  private StoreOpening() {}

  static AgentStore open(String url, StoreOptions options) {
    return open(url, () -> AgentStores.open(url, options));
  }

  static AgentStore open(String url, Supplier<AgentStore> opener) {
    Duration wait = FIRST_WAIT;
    while (true) {
      try {
        return opener.get();
      } catch (RuntimeException e) {
        if (!isUnreachable(e)) {
          throw e;
        }
        log.warn(
            "the store's database at {} cannot be reached ({}); trying again in {} s",
            ProjectionUrl.describe(url),
            e.getMessage(),
            wait.toSeconds());
        try {
          Thread.sleep(wait.toMillis());
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
        Duration doubled = wait.multipliedBy(2);
        wait = doubled.compareTo(LONGEST_WAIT) > 0 ? LONGEST_WAIT : doubled;
      }
    }
  }

  /** Whether the cause chain holds a connection failure (SQL state class 08). */
  static boolean isUnreachable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLException sql
          && sql.getSQLState() != null
          && sql.getSQLState().startsWith("08")) {
        return true;
      }
    }
    return false;
  }
}
