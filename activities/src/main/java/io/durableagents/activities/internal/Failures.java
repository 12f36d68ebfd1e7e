package io.durableagents.activities.internal;

import io.temporal.failure.ApplicationFailure;

/** Names a failure for metrics and traces. */
final class Failures {
  private Failures() {}

  /** An application failure's type, else the exception's simple class name. */
  static String type(Throwable e) {
    return e instanceof ApplicationFailure failure
        ? failure.getType()
        : e.getClass().getSimpleName();
  }
}
