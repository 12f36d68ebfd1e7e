package io.durableagents.app.bench;

import java.time.Duration;
import java.util.Collection;
import java.util.Optional;

/**
 * CPU time used so far by each part of the scale bench's machine, in ms: the Temporal server, the
 * side's worker processes, PostgreSQL (its server and backends) and the bench's own process (the
 * clients). On two shared cores a round's throughput is what these add up to per step.
 */
record CpuTimes(double serverMs, double workersMs, double databaseMs, double clientMs) {

  static CpuTimes now(long serverPid, Collection<AgentsCommandProcess> workers) {
    double workerMs = 0;
    for (AgentsCommandProcess worker : workers) {
      workerMs += worker.cpuTime().toNanos() / 1e6;
    }
    double database =
        ProcessHandle.allProcesses()
            .filter(p -> p.info().command().map(c -> c.endsWith("/postgres")).orElse(false))
            .mapToDouble(CpuTimes::ms)
            .sum();
    return new CpuTimes(
        ProcessHandle.of(serverPid).map(CpuTimes::ms).orElse(0.0),
        workerMs,
        database,
        ms(ProcessHandle.current()));
  }

  private static double ms(ProcessHandle process) {
    Optional<Duration> cpu = process.info().totalCpuDuration();
    return cpu.map(d -> d.toNanos() / 1e6).orElse(0.0);
  }

  /** What was used since {@code before}, per {@code steps}. */
  CpuTimes since(CpuTimes before, double steps) {
    return new CpuTimes(
        (serverMs - before.serverMs) / steps,
        (workersMs - before.workersMs) / steps,
        (databaseMs - before.databaseMs) / steps,
        (clientMs - before.clientMs) / steps);
  }

  double totalMs() {
    return serverMs + workersMs + databaseMs + clientMs;
  }
}
