package io.durableagents.app.bench;

/**
 * How much work each measurement of {@code agents bench} does. {@link #full()} is the default run
 * (a few minutes on two cores), {@link #quick()} is {@code --quick} (well under two minutes), and
 * {@link #tiny()} is for the smoke test only: its figures are not meaningful.
 *
 * @param name shown in the report
 * @param warmupRounds rounds of each kind run and thrown away before measuring
 * @param rounds measured rounds per concurrency (plugin and baseline alternate within a round)
 * @param stepsPerSession1 agent steps (tool-calling model turns) per session, one session at a time
 * @param sessionsPerRound1 sessions run one after the other in a one-session round (at least: a
 *     round goes on with more until it has lasted a quarter of a second)
 * @param stepsPerSessionN agent steps per session when {@code concurrency} sessions run at once
 * @param concurrency sessions at once in a concurrent round (the figures' "64")
 * @param localStepsPerSession1 agent steps per session in the local-activity mode, one session at a
 *     time: more than {@code stepsPerSession1}, as a local step costs a fraction of a regular one
 *     and the session's fixed costs (start, update, the agent's resolution) would otherwise weigh
 *     on the per-step figure more than in the default mode
 * @param localStepsPerSessionN agent steps per session in the local-activity mode, {@code
 *     concurrency} sessions at once
 * @param historyTurns tool-calling turns of the long session (history, fork source, cold replay)
 * @param earlyFrom first turn of the early window (1-based, inclusive)
 * @param earlyTo last turn of the early window (inclusive)
 * @param lateFrom first turn of the late window (inclusive)
 * @param lateTo last turn of the late window (inclusive, at most {@code historyTurns})
 * @param shortTurns tool-calling turns of the short fork source
 * @param contentChars new content per turn: text + tool argument + tool result
 * @param forkRepeats forks of each source
 * @param approvalSamples decisions measured per kind (signal, update, raw baseline)
 * @param waitingSessions sessions paused at an approval for the memory figure
 * @param replayRepeats cold queries and cold empty sends measured
 */
record BenchConfig(
    String name,
    int warmupRounds,
    int rounds,
    int stepsPerSession1,
    int sessionsPerRound1,
    int stepsPerSessionN,
    int concurrency,
    int localStepsPerSession1,
    int localStepsPerSessionN,
    int historyTurns,
    int earlyFrom,
    int earlyTo,
    int lateFrom,
    int lateTo,
    int shortTurns,
    int contentChars,
    int forkRepeats,
    int approvalSamples,
    int waitingSessions,
    int replayRepeats) {

  BenchConfig {
    if (earlyFrom < 1
        || earlyTo < earlyFrom
        || lateFrom <= earlyTo
        || lateTo < lateFrom
        || lateTo > historyTurns) {
      throw new IllegalArgumentException("bad turn windows in " + name);
    }
    if (rounds < 1
        || stepsPerSession1 < 1
        || stepsPerSessionN < 1
        || sessionsPerRound1 < 1
        || concurrency < 1
        || localStepsPerSession1 < 1
        || localStepsPerSessionN < 1
        || shortTurns < 1
        || forkRepeats < 1
        || approvalSamples < 1
        || waitingSessions < 1
        || replayRepeats < 1) {
      throw new IllegalArgumentException("counts must be positive in " + name);
    }
  }

  /** The default run. */
  static BenchConfig full() {
    return new BenchConfig(
        "full", 1, 7, 20, 3, 10, 64, 60, 20, 200, 5, 10, 190, 200, 10, 2000, 25, 20, 2000, 7);
  }

  /** {@code --quick}: fewer rounds, sessions and samples; the same long session. */
  static BenchConfig quick() {
    return new BenchConfig(
        "quick", 1, 5, 10, 3, 4, 64, 30, 8, 200, 5, 10, 190, 200, 10, 2000, 11, 8, 200, 5);
  }

  /**
   * The scale bench's long session and waiting sessions ({@code agents bench --scale}): 1,000 turns
   * (turn 10 against turn 1,000) and 10,000 sessions waiting for an approval; {@code quick} keeps
   * the 1,000 turns and waits with 2,000 sessions.
   */
  static BenchConfig scale(boolean quick) {
    return new BenchConfig(
        quick ? "scale-quick" : "scale",
        0,
        1,
        1,
        1,
        1,
        64,
        1,
        1,
        1000,
        6,
        10,
        991,
        1000,
        1,
        2000,
        1,
        1,
        quick ? 2000 : 10_000,
        1);
  }

  /** Just enough to exercise every measurement; for the smoke test. */
  static BenchConfig tiny() {
    return new BenchConfig("tiny", 0, 1, 2, 1, 2, 4, 3, 2, 12, 2, 3, 10, 11, 3, 600, 1, 2, 40, 1);
  }
}
