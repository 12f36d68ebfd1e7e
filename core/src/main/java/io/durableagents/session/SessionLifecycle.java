package io.durableagents.session;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Where a session is in its life, apart from the state of its runs ({@link RunStatus}). Each has a
 * JSON value ({@link #value()}, also its {@link #toString()}).
 */
public enum SessionLifecycle {
  /** Its workflow is running: it takes sends. */
  OPEN("open"),
  /** A close was accepted: the run in progress finishes, then the workflow completes. */
  CLOSING("closing"),
  /**
   * Its workflow completed (closed by a client, or idle for the agent's idle timeout); the
   * projection keeps everything, and a send starts it again from its last entry.
   */
  CLOSED("closed"),
  /**
   * Deleted: its projection rows were removed before its workflow completed. Only the status query
   * of a deleted workflow that Temporal has not dropped yet answers it; clients report no such
   * session.
   */
  DELETED("deleted");

  private final String value;

  SessionLifecycle(String value) {
    this.value = value;
  }

  /** The JSON value, e.g. {@code closed}. */
  @JsonValue
  public String value() {
    return value;
  }

  /** The state whose JSON value is {@code value}; null for null. */
  @JsonCreator
  public static SessionLifecycle fromValue(String value) {
    if (value == null) {
      return null;
    }
    for (SessionLifecycle state : values()) {
      if (state.value.equals(value)) {
        return state;
      }
    }
    throw new IllegalArgumentException("Unknown session state '" + value + "'.");
  }

  @Override
  public String toString() {
    return value;
  }
}
