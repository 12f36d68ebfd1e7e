package io.durableagents.projection;

/**
 * The projection holds what its read model cannot map (a message or JSON column that does not
 * decode), or its SQLite file is not there. The store and the reader report it in their own
 * exception type with the same message and cause.
 */
public class ProjectionException extends RuntimeException {

  /** A projection failure described by {@code message}. */
  public ProjectionException(String message) {
    super(message);
  }

  /** A projection failure described by {@code message}, caused by {@code cause}. */
  public ProjectionException(String message, Throwable cause) {
    super(message, cause);
  }
}
