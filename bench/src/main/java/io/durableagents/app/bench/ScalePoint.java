package io.durableagents.app.bench;

import java.util.Locale;

/**
 * One point of the scale bench's curves.
 *
 * @param side {@code plugin} or {@code baseline}
 * @param mode {@code default} (activities) or {@code local} (local activities)
 * @param workers worker processes serving this side
 * @param concurrency sessions running at once
 * @param sessions sessions run in all
 * @param steps tool-calling steps per session
 * @param stepsPerSecond all sessions' steps over the point's wall time
 * @param stepP50Ms median step latency (default mode: one model turn's scheduling to the next's,
 *     from history; local mode: a session's time over its steps)
 * @param stepP99Ms 99th percentile step latency
 * @param sessionP50Ms median session time, client start to result
 * @param sessionMaxMs the slowest session's time
 * @param cpuMsPerStep CPU used per step by the server, the side's workers, PostgreSQL and the
 *     clients while the point ran
 */
record ScalePoint(
    String side,
    String mode,
    int workers,
    int concurrency,
    int sessions,
    int steps,
    double stepsPerSecond,
    double stepP50Ms,
    double stepP99Ms,
    double sessionP50Ms,
    double sessionMaxMs,
    CpuTimes cpuMsPerStep) {

  boolean plugin() {
    return "plugin".equals(side);
  }

  String describe() {
    return String.format(
        Locale.ROOT,
        "%s, %s mode, %d worker(s), %d at once: %.1f steps/s, step p50 %.1f ms p99 %.1f ms,"
            + " session p50 %.0f ms max %.0f ms; CPU ms/step: server %.2f, workers %.2f,"
            + " PostgreSQL %.2f, clients %.2f",
        side,
        mode,
        workers,
        concurrency,
        stepsPerSecond,
        stepP50Ms,
        stepP99Ms,
        sessionP50Ms,
        sessionMaxMs,
        cpuMsPerStep.serverMs(),
        cpuMsPerStep.workersMs(),
        cpuMsPerStep.databaseMs(),
        cpuMsPerStep.clientMs());
  }
}
