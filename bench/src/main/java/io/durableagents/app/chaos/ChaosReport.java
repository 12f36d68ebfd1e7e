package io.durableagents.app.chaos;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What a chaos run did and found: the counts it prints, and every violation. */
public final class ChaosReport {
  final List<String> violations = new ArrayList<>();
  ChaosConfig config;
  String dir;
  int sessions;
  int gated;
  int forkedPlanned;
  int forks;
  int settled;
  int workerKills;
  Map<String, Integer> failedStarts = Map.of();
  List<Long> outageMillis = new ArrayList<>();
  List<Long> serverDowntimeMillis = new ArrayList<>();
  int consoleRestarts;
  int toolCalls;
  int effects;
  Map<Verifier.Cause, Integer> duplicateEffects = new TreeMap<>();
  int generations;
  Map<Verifier.Cause, Integer> duplicateGenerations = new TreeMap<>();
  int resentModelTurns;
  int approvals;
  int restDecisions;
  int cliDecisions;
  int alreadyDecidedAnswers;
  Recovery.Times workerRecovery;
  Recovery.Times quietWorkerRecovery;
  Recovery.Times serverRecovery;
  int rebuilt;
  int identical;
  int rows;
  int forkPrefixRows;
  Map<String, Integer> historyCosts = Map.of();
  Map<String, Integer> retries = Map.of();
  Map<String, String> retrySamples = Map.of();
  Duration runtime = Duration.ZERO;

  /** Every broken guarantee, each naming the session and the evidence; empty when all held. */
  public List<String> violations() {
    return List.copyOf(violations);
  }

  /** Sessions planned and started during the storm, forks not included. */
  public int sessions() {
    return sessions;
  }

  /** Worker processes killed during the storm. */
  public int workerKills() {
    return workerKills;
  }

  /** PostgreSQL outages during the storm. */
  public int outages() {
    return outageMillis.size();
  }

  /** Temporal server kills during the storm, each followed by a restart. */
  public int serverRestarts() {
    return serverDowntimeMillis.size();
  }

  /** Console restarts during the storm. */
  public int consoleRestarts() {
    return consoleRestarts;
  }

  /** Forks made of finished sessions, on top of {@link #sessions()}. */
  public int forks() {
    return forks;
  }

  /** Approvals decided through the REST API. */
  public int restDecisions() {
    return restDecisions;
  }

  /** Approvals decided through the CLI, a JVM per decision. */
  public int cliDecisions() {
    return cliDecisions;
  }

  /** Sessions whose rebuilt projection equals the live one. */
  public int rebuiltIdentical() {
    return identical;
  }

  /** Wall-clock time of the whole run, cluster start to checks done. */
  public Duration runtime() {
    return runtime;
  }

  /** The counts, one subject a line, then the violations (at most {@code maxViolations}). */
  public void print(PrintWriter out, int maxViolations) {
    out.printf(
        "chaos: %d sessions (%d gated: %d decided through the REST API, %d through the CLI;"
            + " %d forked), seed %d, storm %d s, PostgreSQL outages of %d s%n",
        sessions,
        gated,
        restDecisions,
        cliDecisions,
        forkedPlanned,
        config.seed(),
        config.storm().toSeconds(),
        config.outage().toSeconds());
    out.printf(
        "faults: %d worker kills, %d PostgreSQL outages %s, %d Temporal server kills (down %s),"
            + " %d console restarts; %d failed starts while a part was down %s%n",
        workerKills,
        outageMillis.size(),
        seconds(outageMillis),
        serverDowntimeMillis.size(),
        seconds(serverDowntimeMillis),
        consoleRestarts,
        failedStarts.values().stream().mapToInt(Integer::intValue).sum(),
        failedStarts.isEmpty() ? "" : failedStarts);
    out.printf("settled: %d of %d sessions (%d forks)%n", settled, sessions + forks, forks);
    out.printf(
        "effects: %d calls ran, %d effects; duplicates by cause %s%n",
        toolCalls, effects, duplicateEffects);
    out.printf(
        "model: %d generations; generated again by cause %s; %d turns resent after"
            + " held_saves_unknown%n",
        generations, duplicateGenerations, resentModelTurns);
    out.printf(
        "approvals: %d, each decided once (%d answers said already decided: an earlier attempt"
            + " of the same driver had landed)%n",
        approvals, alreadyDecidedAnswers);
    out.println("recovery after a worker kill: " + describe(workerRecovery));
    out.println(
        "  of those, kills with no server kill or database outage within "
            + ChaosRun.QUIET_AFTER_KILL.toSeconds()
            + " s: "
            + describe(quietWorkerRecovery));
    out.println("recovery after a server kill: " + describe(serverRecovery));
    out.printf(
        "projection: %d sessions rebuilt by 'agents projection rebuild' into a fresh database,"
            + " %d identical to the live projection (%d rows compared; the %d rows forks copied"
            + " from their sources, which no history holds, were copied over first)%n",
        rebuilt, identical, rows, forkPrefixRows);
    out.println("in the histories: " + historyCosts);
    out.println("client retries: " + retries);
    retrySamples.forEach((kind, sample) -> out.println("  " + kind + ", e.g.: " + sample));
    out.printf(
        "runtime: %d s; files in %s; violations: %d%n",
        runtime.toSeconds(), dir, violations.size());
    for (int i = 0; i < Math.min(maxViolations, violations.size()); i++) {
      out.println("  VIOLATION " + violations.get(i));
    }
    if (violations.size() > maxViolations) {
      out.println("  ... and " + (violations.size() - maxViolations) + " more");
    }
    out.flush();
  }

  private static String describe(Recovery.Times times) {
    if (times == null) {
      return "not measured";
    }
    String rest =
        (times.finishedAcross() == 0
                ? ""
                : ", " + times.finishedAcross() + " finished their step in flight across the kill")
            + ", "
            + times.notRecovered()
            + " never resumed";
    if (times.millis().isEmpty()) {
      return "no session resumed a step after it" + rest;
    }
    return String.format(
        "%d sessions resumed, p50 %.1f s, p99 %.1f s, max %.1f s%s",
        times.millis().size(),
        times.percentile(50) / 1e3,
        times.percentile(99) / 1e3,
        times.max() / 1e3,
        rest);
  }

  private static String seconds(List<Long> millis) {
    List<String> each = new ArrayList<>();
    for (long m : millis) {
      each.add(String.format("%.1f s", m / 1e3));
    }
    return each.toString();
  }
}
