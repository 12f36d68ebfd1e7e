package io.durableagents.store;

/** A store operation failed: the database could not be reached, or it holds inconsistent data. */
public class StoreException extends RuntimeException {

  public StoreException(String message) {
    super(message);
  }

  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
