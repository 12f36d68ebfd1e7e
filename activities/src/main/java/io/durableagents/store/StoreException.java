package io.durableagents.store;

/** A store operation failed: the database could not be reached, or it holds inconsistent data. */
public class StoreException extends RuntimeException {

  /** A store failure described by {@code message}. */
  public StoreException(String message) {
    super(message);
  }

  /** A store failure described by {@code message}, caused by {@code cause}. */
  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
