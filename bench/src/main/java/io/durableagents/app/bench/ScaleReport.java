package io.durableagents.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * What {@code agents bench --scale} measured: the curves' points, the long session's and the
 * waiting sessions' figures, and the targets checked against them; as a table, JSON and a PNG.
 */
final class ScaleReport {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * A target: {@code value} against {@code limit}, met when at least the limit ({@code atLeast}) or
   * at most it; NaN when this run did not measure it. {@code baseline} is the hand-written loop's
   * own value of the same figure, where it has one (NaN otherwise).
   */
  record Target(
      String key, String label, double value, double limit, boolean atLeast, double baseline) {
    boolean met() {
      return atLeast ? value >= limit : value <= limit;
    }
  }

  private final ScaleConfig config;
  private final String target;
  private final List<ScalePoint> points;
  private final Map<String, Double> figures;

  ScaleReport(
      ScaleConfig config,
      String target,
      List<ScalePoint> points,
      BenchReport growth,
      Map<String, Double> projectionLoad) {
    this.config = config;
    this.target = target;
    this.points = List.copyOf(points);
    Map<String, Double> all = new LinkedHashMap<>(growth.figures());
    all.putAll(projectionLoad);
    this.figures = Collections.unmodifiableMap(all);
  }

  List<ScalePoint> points() {
    return points;
  }

  Map<String, Double> figures() {
    return figures;
  }

  List<Target> targets() {
    int reference = config.localConcurrency();
    int fewest = config.workers().get(0);
    int most = Collections.max(config.workers());
    int highest = Collections.max(config.concurrency());
    List<Target> targets = new ArrayList<>();
    targets.add(
        new Target(
            "defaultModeThroughputRatio" + reference,
            "default mode, " + reference + " sessions: plugin / hand-written steps per second",
            throughputRatio("default", fewest, reference),
            1.0,
            true,
            Double.NaN));
    targets.add(
        new Target(
            "localModeThroughputRatio" + reference,
            "local mode, " + reference + " sessions: plugin / hand-written steps per second",
            throughputRatio("local", fewest, reference),
            1.0,
            true,
            Double.NaN));
    targets.add(
        new Target(
            "stepP99At" + highest + "OverP50At" + reference,
            "p99 step latency at "
                + highest
                + " sessions / p50 at "
                + reference
                + " ("
                + most
                + " workers)",
            tailRatio("plugin", most, highest, reference),
            3.0,
            false,
            tailRatio("baseline", most, highest, reference)));
    targets.add(
        new Target(
            "slowestSessionOverMedianAt" + highest,
            "slowest session / median session at " + highest + " sessions (" + most + " workers)",
            starvation("plugin", most, highest),
            2.0,
            false,
            starvation("baseline", most, highest)));
    targets.add(
        new Target(
            "bytesPerWaitingSessionWorker",
            "worker heap per waiting session, "
                + format(figures.getOrDefault("waitingSessions", Double.NaN))
                + " waiting (bytes)",
            figures.getOrDefault("bytesPerWaitingSessionWorker", Double.NaN),
            16 * 1024,
            false,
            Double.NaN));
    targets.add(
        new Target(
            "historyGrowthRatio",
            "history bytes per turn, turns "
                + config.growthAndMemory().lateFrom()
                + "–"
                + config.growthAndMemory().lateTo()
                + " / turns "
                + config.growthAndMemory().earlyFrom()
                + "–"
                + config.growthAndMemory().earlyTo(),
            figures.getOrDefault("historyGrowthRatio", Double.NaN),
            1.05,
            false,
            Double.NaN));
    return targets;
  }

  private double throughputRatio(String mode, int workers, int concurrency) {
    return point("plugin", mode, workers, concurrency)
        .flatMap(
            plugin ->
                point("baseline", mode, workers, concurrency)
                    .map(baseline -> plugin.stepsPerSecond() / baseline.stepsPerSecond()))
        .orElse(Double.NaN);
  }

  private double tailRatio(String side, int workers, int highest, int reference) {
    return point(side, "default", workers, highest)
        .flatMap(
            high ->
                point(side, "default", workers, reference)
                    .map(low -> high.stepP99Ms() / low.stepP50Ms()))
        .orElse(Double.NaN);
  }

  private double starvation(String side, int workers, int concurrency) {
    return point(side, "default", workers, concurrency)
        .map(p -> p.sessionMaxMs() / p.sessionP50Ms())
        .orElse(Double.NaN);
  }

  private Optional<ScalePoint> point(String side, String mode, int workers, int concurrency) {
    return points.stream()
        .filter(
            p ->
                p.side().equals(side)
                    && p.mode().equals(mode)
                    && p.workers() == workers
                    && p.concurrency() == concurrency)
        .findFirst();
  }

  String toJson() {
    ObjectNode root = JSON.createObjectNode();
    root.put("config", config.name());
    root.put("target", target);
    ArrayNode curve = root.putArray("points");
    for (ScalePoint p : points) {
      curve.add(JSON.valueToTree(p));
    }
    ObjectNode figureNode = root.putObject("figures");
    figures.forEach(figureNode::put);
    ArrayNode targetNode = root.putArray("targets");
    for (Target t : targets()) {
      ObjectNode node =
          targetNode
              .addObject()
              .put("key", t.key())
              .put("label", t.label())
              .put("value", t.value())
              .put(t.atLeast() ? "atLeast" : "atMost", t.limit())
              .put("met", t.met());
      if (!Double.isNaN(t.baseline())) {
        node.put("baseline", t.baseline());
      }
    }
    return root.toString();
  }

  void printTable(PrintWriter out) {
    out.println("Scale bench (" + config.name() + ") on " + target);
    out.printf(
        "  %-8s %-7s %7s %8s %9s %9s %9s %11s %11s %7s %7s %7s %7s%n",
        "side",
        "mode",
        "workers",
        "sessions",
        "steps/s",
        "step p50",
        "step p99",
        "session p50",
        "session max",
        "cpu srv",
        "cpu wkr",
        "cpu db",
        "cpu cli");
    for (ScalePoint p : points) {
      out.printf(
          "  %-8s %-7s %7d %8d %9s %9s %9s %11s %11s %7s %7s %7s %7s%n",
          p.side(),
          p.mode(),
          p.workers(),
          p.concurrency(),
          format(p.stepsPerSecond()),
          format(p.stepP50Ms()),
          format(p.stepP99Ms()),
          format(p.sessionP50Ms()),
          format(p.sessionMaxMs()),
          format(p.cpuMsPerStep().serverMs()),
          format(p.cpuMsPerStep().workersMs()),
          format(p.cpuMsPerStep().databaseMs()),
          format(p.cpuMsPerStep().clientMs()));
    }
    out.println(
        "  (latencies in ms; CPU in ms per step: Temporal server, the side's workers, PostgreSQL,"
            + " the bench's clients)");
    for (String key :
        List.of(
            "historyTurns",
            "historyBytesPerTurnEarly",
            "historyBytesPerTurnLate",
            "historyGrowthRatio",
            "waitingSessions",
            "bytesPerWaitingSessionWorker",
            "bytesPerWaitingSession",
            "projectionRowsInsertedPerStep",
            "projectionRowsUpdatedPerStep",
            "projectionCommitsPerStep",
            "projectionBytesPerStep")) {
      out.printf("  %-44s %12s%n", key, format(figures.getOrDefault(key, Double.NaN)));
    }
    out.println("Targets");
    for (Target t : targets()) {
      out.printf(
          "  %-78s %8s %s %-6s %s%s%n",
          t.label(),
          format(t.value()),
          t.atLeast() ? "≥" : "≤",
          format(t.limit()),
          Double.isNaN(t.value()) ? "not measured" : t.met() ? "met" : "MISSED",
          Double.isNaN(t.baseline()) ? "" : " (hand-written: " + format(t.baseline()) + ")");
    }
  }

  /** Steps per second and step latency against concurrent sessions, side by side, as a PNG. */
  void plot(Path png) throws IOException {
    XYChart throughput = chart("Steps per second", "steps/s");
    XYChart latency = chart("Step latency", "ms");
    for (int workers : config.workers()) {
      for (String side : List.of("plugin", "baseline")) {
        String name = (side.equals("plugin") ? "plugin" : "hand-written") + ", " + workers + "w";
        series(throughput, name, side, workers, ScalePoint::stepsPerSecond);
        series(latency, name + " p50", side, workers, ScalePoint::stepP50Ms);
        series(latency, name + " p99", side, workers, ScalePoint::stepP99Ms);
      }
    }
    BitmapEncoder.saveBitmap(
        List.of(throughput, latency), 1, 2, png.toString(), BitmapEncoder.BitmapFormat.PNG);
  }

  private static XYChart chart(String title, String yAxis) {
    XYChart chart =
        new XYChartBuilder()
            .width(640)
            .height(440)
            .title(title)
            .xAxisTitle("concurrent sessions")
            .yAxisTitle(yAxis)
            .build();
    chart.getStyler().setXAxisLogarithmic(true);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
    return chart;
  }

  private void series(
      XYChart chart, String name, String side, int workers, ToDoubleFunction<ScalePoint> figure) {
    List<ScalePoint> curve =
        points.stream()
            .filter(p -> p.side().equals(side) && p.mode().equals("default"))
            .filter(p -> p.workers() == workers)
            .toList();
    if (curve.isEmpty()) {
      return;
    }
    double[] x = curve.stream().mapToDouble(ScalePoint::concurrency).toArray();
    double[] y = curve.stream().mapToDouble(figure).toArray();
    chart.addSeries(name, x, y).setMarker(SeriesMarkers.CIRCLE);
  }

  private static String format(double value) {
    return BenchReport.format(value);
  }
}
