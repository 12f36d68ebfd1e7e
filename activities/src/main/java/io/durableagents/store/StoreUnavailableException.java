package io.durableagents.store;

/**
 * The database failed the operation or could not be reached (it is down, restarting, or out of
 * connections): the same operation may succeed once it is back. Every other {@link StoreException}
 * means the data itself is wrong (rows the store should hold are missing), which no retry fixes.
 */
public class StoreUnavailableException extends StoreException {

  /** The database failed a call or could not be reached; {@code cause} says how. */
  public StoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
