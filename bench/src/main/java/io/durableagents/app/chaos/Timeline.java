package io.durableagents.app.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What the storm did, when: every fault with the instant it struck and the instant the part was
 * back (epoch milliseconds, the clock of the ledgers' {@code ts}), and every start of a worker or
 * the console that failed because something it needs was down.
 */
final class Timeline {
  enum Kind {
    /** {@code kill -9} of a worker process; back when its replacement polls. */
    WORKER_KILL,
    /** {@code kill -9} of the Temporal server; back when it answers again on the same file. */
    SERVER_KILL,
    /** PostgreSQL stopped; back when it started again. */
    POSTGRES_OUTAGE,
    /** {@code kill -9} of the console; back when it serves again. */
    CONSOLE_RESTART
  }

  /**
   * One fault.
   *
   * @param pid the killed process (0 for an outage)
   */
  record Fault(Kind kind, long start, long end, long pid) {
    boolean overlaps(long from, long to) {
      return from <= end && to >= start;
    }
  }

  private final long origin = System.currentTimeMillis();
  private final List<Fault> faults = new CopyOnWriteArrayList<>();
  private final Set<Long> killedWorkers = ConcurrentHashMap.newKeySet();
  private final Map<String, Integer> failedStarts = new ConcurrentSkipListMap<>();

  /** Called at the instant of a kill, before it: a worker's lines after it are a dead one's. */
  void workerKilled(long pid) {
    killedWorkers.add(pid);
  }

  void add(Fault fault) {
    faults.add(fault);
  }

  /** A start of {@code what} that did not reach its ready line, and its last output line. */
  void failedStart(String what, String reason) {
    failedStarts.merge(what + ": " + reason, 1, Integer::sum);
  }

  List<Fault> faults(Kind kind) {
    List<Fault> of = new ArrayList<>();
    for (Fault fault : faults) {
      if (fault.kind() == kind) {
        of.add(fault);
      }
    }
    return of;
  }

  Set<Long> killedWorkers() {
    return Set.copyOf(killedWorkers);
  }

  Map<String, Integer> failedStarts() {
    return Map.copyOf(failedStarts);
  }

  int failedStartCount() {
    return failedStarts.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** {@code +12.3s}: an instant as time since the run began. */
  String at(long epochMillis) {
    return String.format("+%.1fs", (epochMillis - origin) / 1e3);
  }
}
