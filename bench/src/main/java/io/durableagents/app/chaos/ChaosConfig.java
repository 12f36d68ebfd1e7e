package io.durableagents.app.chaos;

import java.time.Duration;
import java.util.Objects;

/**
 * What a chaos run does: how many sessions arrive during the storm, how long the storm lasts, how
 * long each PostgreSQL outage is, and the random seed of the session plan and the fault instants.
 * The counts of the large faults follow from the storm's length ({@link #outages}, {@link
 * #serverKills}, {@link #consoleRestarts}); worker kills come every {@link #workerKillEvery} on
 * average.
 *
 * @param sessions sessions started during the storm (forks come on top)
 * @param storm how long faults are injected; sessions arrive during its first three quarters
 * @param outage how long PostgreSQL is stopped, each time
 * @param settle how long, after the storm, the sessions may go without one of them settling before
 *     those still running are named as ones that did not (a busy machine makes them slow, not
 *     stuck); six times this after the storm at most
 * @param seed the seed of the plan: which sessions are gated, forked, decided by the CLI, and when
 *     each fault strikes
 */
public record ChaosConfig(
    int sessions, Duration storm, Duration outage, Duration settle, long seed) {
  /** The worker processes. */
  static final int WORKERS = 3;

  /** Every third session waits for an approval. */
  static final int GATED_EVERY = 3;

  /** Every tenth session is forked once it finished, while the storm goes on. */
  static final int FORKED_EVERY = 10;

  /**
   * Every fourth gated session is decided through the CLI (a JVM per decision), the others through
   * the REST API.
   */
  static final int CLI_EVERY = 4;

  /**
   * Refuses fewer than one session, a storm shorter than a minute, and an outage that is not
   * positive or longer than a third of the storm.
   */
  public ChaosConfig {
    Objects.requireNonNull(storm, "storm");
    Objects.requireNonNull(outage, "outage");
    Objects.requireNonNull(settle, "settle");
    if (sessions < 1) {
      throw new IllegalArgumentException("--sessions must be at least 1, got " + sessions);
    }
    if (storm.compareTo(Duration.ofSeconds(60)) < 0) {
      throw new IllegalArgumentException("the storm must last at least a minute, got " + storm);
    }
    if (outage.isNegative() || outage.isZero() || outage.multipliedBy(3).compareTo(storm) > 0) {
      throw new IllegalArgumentException(
          "the PostgreSQL outage must be positive and at most a third of the storm, got " + outage);
    }
  }

  /** The CI form (ChaosIT): 200 sessions, a 150 s storm, 20 s outages; at most 6 minutes. */
  public static ChaosConfig ci(long seed) {
    return new ChaosConfig(
        200, Duration.ofSeconds(150), Duration.ofSeconds(20), Duration.ofSeconds(90), seed);
  }

  /** The long form ({@code agents chaos}): 1,000 sessions, a 10-minute storm, 60 s outages. */
  public static ChaosConfig full(long seed) {
    return new ChaosConfig(
        1000, Duration.ofMinutes(10), Duration.ofSeconds(60), Duration.ofMinutes(5), seed);
  }

  /** PostgreSQL outages: one per five minutes of storm, at least one. */
  int outages() {
    return (int) Math.max(1, storm.toSeconds() / 300);
  }

  /** Temporal server kills: one per two minutes of storm, at least two. */
  int serverKills() {
    return (int) Math.max(2, storm.toSeconds() / 120);
  }

  /** Console restarts: one per minute and a half of storm, at least two. */
  int consoleRestarts() {
    return (int) Math.max(2, storm.toSeconds() / 90);
  }

  /** The mean time between two worker kills (each costs a JVM start on the same two cores). */
  Duration workerKillEvery() {
    return Duration.ofSeconds(10);
  }

  /** Sessions arrive during this first part of the storm, so that the last ones meet faults too. */
  Duration arrivals() {
    return storm.multipliedBy(3).dividedBy(4);
  }
}
