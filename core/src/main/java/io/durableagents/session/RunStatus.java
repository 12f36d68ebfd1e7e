package io.durableagents.session;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * The states a run (and so a session) can be in. Each has a JSON value ({@link #value()}, also its
 * {@link #toString()}): the payloads, the projection's {@code status} columns and the CLI use it.
 */
public enum RunStatus {
  /** No run yet: the session waits for its first message. */
  IDLE("idle"),
  /** A run is going on. */
  IN_PROGRESS("in-progress"),
  /** The run waits for a decision on a tool call. */
  AWAITING_APPROVAL("awaiting-approval"),
  /** The run ended with an answer (or at a budget). */
  FINISHED("finished"),
  /** The run failed. */
  FAILED("failed"),
  /** The run was cancelled. */
  CANCELLED("cancelled"),
  /**
   * The run waits for the lease of its concurrency key: a run of another session with the same key
   * is in progress.
   */
  QUEUED("queued");

  private final String value;

  RunStatus(String value) {
    this.value = value;
  }

  /** The JSON value, e.g. {@code in-progress}. */
  @JsonValue
  public String value() {
    return value;
  }

  /** The status whose JSON value is {@code value}; null for null. */
  @JsonCreator
  public static RunStatus fromValue(String value) {
    if (value == null) {
      return null;
    }
    for (RunStatus status : values()) {
      if (status.value.equals(value)) {
        return status;
      }
    }
    throw new IllegalArgumentException("Unknown run status '" + value + "'.");
  }

  /** True for the states a run cannot leave. */
  public boolean isSettled() {
    return this == FINISHED || this == FAILED || this == CANCELLED;
  }

  /** True when {@code status} is one a run cannot leave; false for null. */
  public static boolean settled(RunStatus status) {
    return status != null && status.isSettled();
  }

  @Override
  public String toString() {
    return value;
  }
}
