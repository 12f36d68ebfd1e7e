package io.durableagents.app.bench;

import java.util.List;

/**
 * How much {@code agents bench --scale} does. {@link #full()} is the issue-sized run (1 to 1,000
 * concurrent sessions, 1 and 3 worker processes per side, 10,000 waiting sessions, a 1,000-turn
 * session), {@link #quick()} a shorter one, {@link #tiny()} the integration test's.
 *
 * @param name shown in the report
 * @param concurrency the concurrent-session counts of the curves
 * @param workers the worker process counts (of each side) of the curves
 * @param steps tool-calling steps per session
 * @param minSeconds how long a point keeps starting sessions at least (and it starts at least
 *     {@code concurrency}; a point at 1 runs them one after the other)
 * @param localConcurrency concurrent sessions of the local-mode point (one worker per side)
 * @param growthAndMemory the long session and the waiting sessions
 */
record ScaleConfig(
    String name,
    List<Integer> concurrency,
    List<Integer> workers,
    int steps,
    int minSeconds,
    int localConcurrency,
    BenchConfig growthAndMemory) {

  static ScaleConfig full() {
    return new ScaleConfig(
        "full", List.of(1, 64, 256, 1000), List.of(1, 3), 10, 30, 64, BenchConfig.scale(false));
  }

  static ScaleConfig quick() {
    return new ScaleConfig(
        "quick", List.of(1, 64, 256), List.of(1, 3), 10, 10, 64, BenchConfig.scale(true));
  }

  static ScaleConfig tiny() {
    return new ScaleConfig("tiny", List.of(1, 4), List.of(1, 2), 2, 1, 4, BenchConfig.tiny());
  }
}
