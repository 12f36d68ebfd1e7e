package io.durableagents.testing;

import java.util.List;

/**
 * What {@link SessionReplayer} found: one {@link SessionReplayResult} per replayed workflow run, in
 * the order they were given. It never throws on a failed run by itself; {@link
 * #assertAllReplayed()} does, listing every failure, for a JUnit test.
 */
public final class SessionReplayReport {
  private final List<SessionReplayResult> results;

  SessionReplayReport(List<SessionReplayResult> results) {
    this.results = List.copyOf(results);
  }

  /** Every replayed run, in order. */
  public List<SessionReplayResult> results() {
    return results;
  }

  /** The runs that did not replay. */
  public List<SessionReplayResult> failures() {
    return results.stream().filter(r -> !r.replayed()).toList();
  }

  /** True when every run replayed (also when there were none). */
  public boolean allReplayed() {
    return results.stream().allMatch(SessionReplayResult::replayed);
  }

  /** {@code "12 replayed, 1 failed"}. */
  public String summary() {
    int failed = failures().size();
    return (results.size() - failed) + " replayed, " + failed + " failed";
  }

  /**
   * Throws an {@link AssertionError} naming every run that did not replay, and why; returns this
   * report when all did.
   */
  public SessionReplayReport assertAllReplayed() {
    List<SessionReplayResult> failures = failures();
    if (!failures.isEmpty()) {
      StringBuilder message =
          new StringBuilder("Recorded sessions do not replay with the current workflow code (")
              .append(summary())
              .append("):");
      for (SessionReplayResult failure : failures) {
        message.append(System.lineSeparator()).append("  ").append(failure);
      }
      throw new AssertionError(message.toString());
    }
    return this;
  }

  @Override
  public String toString() {
    return "SessionReplayReport{" + summary() + "}";
  }
}
