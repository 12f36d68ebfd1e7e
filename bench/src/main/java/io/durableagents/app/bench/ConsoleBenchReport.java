package io.durableagents.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** The figures of {@code agents bench console}: as a table, or as one JSON object. */
final class ConsoleBenchReport {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Nearest-rank percentiles of a sample, in milliseconds. */
  record Percentiles(double p50, double p95, double max) {
    static Percentiles of(long[] nanos) {
      long[] sorted = nanos.clone();
      Arrays.sort(sorted);
      return new Percentiles(
          rank(sorted, 0.50) / 1e6, rank(sorted, 0.95) / 1e6, sorted[sorted.length - 1] / 1e6);
    }

    private static long rank(long[] sorted, double p) {
      return sorted[Math.max(0, (int) Math.ceil(p * sorted.length) - 1)];
    }

    ObjectNode toJson() {
      ObjectNode node = JSON.createObjectNode();
      node.put("p50Ms", round(p50));
      node.put("p95Ms", round(p95));
      node.put("maxMs", round(max));
      return node;
    }
  }

  /**
   * One route: over HTTP, and the same read through the projection reader alone.
   *
   * @param items the approvals or sessions an answer holds
   * @param bytes the size of an answer's body
   */
  record RouteFigures(
      String name, String request, int items, long bytes, Percentiles http, Percentiles reader) {}

  final ConsoleBench.Config config;
  String database;
  String serverVersion;
  double migrateSeconds;
  double seedSeconds;
  double consoleStartSeconds;
  ConsoleSeed.Seeded seeded;
  int deepPageSessions;
  final List<RouteFigures> routes = new ArrayList<>();
  Percentiles connect;

  ConsoleBenchReport(ConsoleBench.Config config) {
    this.config = config;
  }

  /** Whether every route's p95 over HTTP is within the target. */
  boolean pass() {
    return routes.stream().allMatch(route -> route.http().p95() <= ConsoleBench.TARGET_P95_MS);
  }

  private RouteFigures slowest() {
    RouteFigures slowest = routes.get(0);
    for (RouteFigures route : routes) {
      if (route.http().p95() > slowest.http().p95()) {
        slowest = route;
      }
    }
    return slowest;
  }

  String verdict() {
    RouteFigures slowest = slowest();
    if (pass()) {
      return String.format(
          Locale.ROOT,
          "PASS: every route's p95 is within %.0f ms (slowest: %s, p95 %.1f ms)",
          ConsoleBench.TARGET_P95_MS,
          slowest.name(),
          slowest.http().p95());
    }
    List<String> missed = new ArrayList<>();
    for (RouteFigures route : routes) {
      if (route.http().p95() > ConsoleBench.TARGET_P95_MS) {
        missed.add(
            String.format(Locale.ROOT, "%s (p95 %.1f ms)", route.name(), route.http().p95()));
      }
    }
    return String.format(
        Locale.ROOT,
        "MISS: p95 over %.0f ms on %s",
        ConsoleBench.TARGET_P95_MS,
        String.join(", ", missed));
  }

  String toJson() {
    ObjectNode root = JSON.createObjectNode();
    root.put("bench", "console");
    root.put("database", database);
    root.put("server", serverVersion);
    root.put("cpus", Runtime.getRuntime().availableProcessors());
    root.put("sessions", seeded.sessions());
    root.put("pendingApprovals", seeded.pending());
    root.put("decidedApprovals", seeded.decided());
    root.put("awaitingApprovalSessions", seeded.awaitingApproval());
    root.put("forks", seeded.forks());
    root.put("messages", seeded.messages());
    root.put("checkpoints", seeded.checkpoints());
    root.put("requestsPerRoute", config.requests());
    root.put("warmupRounds", config.warmup());
    root.put("migrateSeconds", round(migrateSeconds));
    root.put("seedSeconds", round(seedSeconds));
    root.put("consoleStartSeconds", round(consoleStartSeconds));
    ObjectNode byRoute = root.putObject("routes");
    for (RouteFigures route : routes) {
      ObjectNode node = byRoute.putObject(route.name());
      node.put("request", route.request());
      node.put("items", route.items());
      node.put("bytes", route.bytes());
      node.setAll(route.http().toJson());
      node.set("reader", route.reader().toJson());
    }
    root.set("connect", connect.toJson());
    root.put("targetP95Ms", Math.round(ConsoleBench.TARGET_P95_MS));
    root.put("pass", pass());
    root.put("verdict", verdict());
    return root.toString();
  }

  void printTable(PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "Console at scale · %s (%s) · %d CPUs%n",
        serverVersion,
        database,
        Runtime.getRuntime().availableProcessors());
    out.printf(
        Locale.ROOT,
        "seeded %,d sessions (%,d awaiting approval, %,d forks; %,d messages, %,d checkpoints),%n"
            + "  %,d pending + %,d decided approvals in %.1f s (schema migrated in %.1f s);"
            + " console started in %.2f s%n",
        seeded.sessions(),
        seeded.awaitingApproval(),
        seeded.forks(),
        seeded.messages(),
        seeded.checkpoints(),
        seeded.pending(),
        seeded.decided(),
        seedSeconds,
        migrateSeconds,
        consoleStartSeconds);
    out.printf(
        Locale.ROOT,
        "%d sequential requests per route after %d warm-up rounds, routes interleaved;"
            + " the deep page follows the cursors past %,d sessions%n",
        config.requests(),
        config.warmup(),
        deepPageSessions);
    out.println();
    out.printf(
        Locale.ROOT,
        "  %-26s %6s %8s %8s %8s %8s   %s%n",
        "route",
        "items",
        "KiB",
        "p50 ms",
        "p95 ms",
        "max ms",
        "reader alone p50 / p95 ms");
    for (RouteFigures route : routes) {
      out.printf(
          Locale.ROOT,
          "  %-26s %6d %8.1f %8.1f %8.1f %8.1f   %6.1f / %.1f%n",
          route.name(),
          route.items(),
          route.bytes() / 1024.0,
          route.http().p50(),
          route.http().p95(),
          route.http().max(),
          route.reader().p50(),
          route.reader().p95());
    }
    out.println();
    for (RouteFigures route : routes) {
      out.printf(Locale.ROOT, "  %-26s %s%n", route.name(), route.request());
    }
    out.printf(
        Locale.ROOT,
        "  (reader alone: the same read through ProjectionReader in this process, no HTTP or JSON;%n"
            + "   a new connection, which the reader's pool saves: p50 %.1f ms, p95 %.1f ms)%n",
        connect.p50(),
        connect.p95());
    out.println();
    out.println("verdict: " + verdict());
  }

  private static double round(double value) {
    return Math.round(value * 100) / 100.0;
  }
}
