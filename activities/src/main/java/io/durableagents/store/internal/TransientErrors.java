package io.durableagents.store.internal;

import java.sql.SQLException;
import java.util.Locale;

/** Tells the database errors that a retry of the whole transaction can cure. */
public final class TransientErrors {
  private static final int SQLITE_BUSY = 5;
  private static final int SQLITE_LOCKED = 6;
  private static final int MAX_DEPTH = 16;

  private TransientErrors() {}

  /**
   * True for SQLite's SQLITE_BUSY / SQLITE_LOCKED (another writer holds the database) and
   * PostgreSQL's serialization failures and deadlocks.
   */
  public static boolean isTransient(SQLException error) {
    Throwable t = error;
    for (int depth = 0; t != null && depth < MAX_DEPTH; depth++, t = next(t)) {
      if (t instanceof SQLException sql && matches(sql)) {
        return true;
      }
    }
    return false;
  }

  private static Throwable next(Throwable t) {
    if (t instanceof SQLException sql && sql.getNextException() != null) {
      return sql.getNextException();
    }
    return t.getCause() == t ? null : t.getCause();
  }

  private static boolean matches(SQLException e) {
    String state = e.getSQLState();
    if ("40001".equals(state) || "40P01".equals(state)) {
      return true;
    }
    int base = e.getErrorCode() & 0xff;
    if (base == SQLITE_BUSY || base == SQLITE_LOCKED) {
      String message = e.getMessage() == null ? "" : e.getMessage().toUpperCase(Locale.ROOT);
      return message.contains("SQLITE_BUSY")
          || message.contains("SQLITE_LOCKED")
          || message.contains("DATABASE IS LOCKED");
    }
    return false;
  }
}
