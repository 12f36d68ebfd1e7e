package io.durableagents.store.internal;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;

/** Parses and describes the JDBC URLs the store accepts. */
public final class StoreUrls {
  public static final String SQLITE_PREFIX = "jdbc:sqlite:";
  public static final String POSTGRESQL_PREFIX = "jdbc:postgresql:";

  private static final String EXPECTED =
      "expected jdbc:sqlite:PATH (a database file) or jdbc:postgresql://HOST[:PORT]/DATABASE";

  private StoreUrls() {}

  /** The database kinds the store supports. */
  public enum Kind {
    SQLITE,
    POSTGRESQL
  }

  /** The kind of {@code url}, or an {@link IllegalArgumentException} that says what is expected. */
  public static Kind kind(String url) {
    if (url == null || url.isBlank()) {
      throw new IllegalArgumentException("the store URL is empty: " + EXPECTED);
    }
    String lower = url.strip().toLowerCase(Locale.ROOT);
    if (lower.startsWith(SQLITE_PREFIX)) {
      return Kind.SQLITE;
    }
    if (lower.startsWith(POSTGRESQL_PREFIX)) {
      return Kind.POSTGRESQL;
    }
    throw new IllegalArgumentException(
        "unsupported store URL '" + describe(url) + "': " + EXPECTED);
  }

  /**
   * The database file of a {@code jdbc:sqlite:} URL. In-memory and classpath-resource databases
   * are refused: every pooled connection would see a database of its own, or none could write.
   */
  public static Path sqliteFile(String url) {
    String rest = url.strip().substring(SQLITE_PREFIX.length());
    int query = rest.indexOf('?');
    String query0 = query < 0 ? "" : rest.substring(query + 1);
    String file = query < 0 ? rest : rest.substring(0, query);
    if (file.startsWith("file:")) {
      file = file.substring("file:".length());
      if (file.startsWith("///")) {
        file = file.substring(2);
      }
    }
    if (file.isBlank()
        || file.equals(":memory:")
        || query0.toLowerCase(Locale.ROOT).contains("mode=memory")) {
      throw new IllegalArgumentException(
          "the SQLite store needs a database file, got '"
              + url
              + "': an in-memory database is not shared between connections and dies with them");
    }
    if (file.startsWith(":resource:")) {
      throw new IllegalArgumentException(
          "the SQLite store needs a writable database file, got the resource '" + url + "'");
    }
    try {
      return Path.of(file);
    } catch (InvalidPathException e) {
      throw new IllegalArgumentException("invalid SQLite database path in '" + url + "'", e);
    }
  }

  /**
   * The URL without what may be secret: the user info and the query (where PostgreSQL URLs carry
   * {@code password=}).
   */
  public static String describe(String url) {
    if (url == null) {
      return "null";
    }
    String result = url.strip();
    int query = result.indexOf('?');
    if (query >= 0) {
      result = result.substring(0, query) + "?...";
    }
    int scheme = result.indexOf("//");
    int at = result.indexOf('@');
    if (scheme >= 0 && at > scheme) {
      result = result.substring(0, scheme + 2) + "***@" + result.substring(at + 1);
    }
    return result;
  }
}
