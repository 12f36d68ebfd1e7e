package io.durableagents.app.bench;

import io.durableagents.app.TemporalCli;
import io.durableagents.app.cli.AgentsSubcommand;
import io.durableagents.cli.CliException;
import io.durableagents.cli.ExitCodes;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/**
 * {@code agents bench [--quick] [--json] [--temporal HOST:PORT] [--projection JDBC_URL]}: the
 * benchmarks (docs/benchmarks.md), measured in one run and reported as ratios against a minimal
 * hand-written Temporal workflow in a worker process of its own; {@code --anatomy} takes steps
 * apart on the real server, {@code --scale} draws the cost curves. Progress goes to stderr; the
 * table (or with {@code --json} one JSON object) to stdout.
 */
@Command(
    name = "bench",
    description =
        "Measure the plugin against a minimal hand-written Temporal workflow, in one run: step"
            + " overhead (1 and 64 sessions; model turn and tool as activities, and as local"
            + " activities against a local-activity baseline) and where a step's time goes,"
            + " history bytes per turn over a 200-turn session, approval-to-resume latency, fork"
            + " latency against session length, heap per waiting session and cold replay time."
            + " Runs on the embedded stack (Temporal test server + temporary SQLite) unless"
            + " --temporal or --projection is given; the bench does not take them from"
            + " TEMPORAL_ADDRESS / AGENTS_PROJECTION_URL, so it never fills a shared deployment"
            + " by accident. A full run takes a few minutes; --quick well under two."
            + " 'bench console' times the web console's lists instead.",
    subcommands = {ConsoleBenchCommand.class, BenchWorkerCommand.class},
    footer = "")
public class BenchCommand implements Callable<Integer>, AgentsSubcommand {
  @Spec CommandSpec spec;

  @Option(
      names = "--quick",
      description = "Fewer rounds, sessions and samples (under two minutes).")
  boolean quick;

  @Option(
      names = "--anatomy",
      description =
          "Only take steps apart on the real server: where each step's time goes (the server's"
              + " dispatch, workflow tasks, activities, the plugin's handlers), plugin next to a"
              + " hand-written loop in its own worker. Without --temporal it starts the Temporal"
              + " CLI's dev server twice: with its own defaults and as 'agents server' does.")
  boolean anatomy;

  @Option(
      names = "--scale",
      description =
          "Only the cost curves: starts the Temporal CLI's dev server and a PostgreSQL, runs 1"
              + " and 3 plugin worker processes next to as many hand-written ones, and measures"
              + " steps per second and step latency at 1 to 1,000 concurrent sessions, then a"
              + " 1,000-turn session and 10,000 waiting sessions (about half an hour; --quick:"
              + " up to 256 sessions and 2,000 waiting). Writes the curves to --plot.")
  boolean scale;

  @Option(
      names = "--plot",
      paramLabel = "FILE",
      defaultValue = "agents-bench-scale.png",
      description = "With --scale: the PNG of the curves (default: ${DEFAULT-VALUE}).")
  Path plot;

  @Option(
      names = "--json",
      description = "Print one JSON object of the figures instead of the table.")
  boolean json;

  @Option(
      names = "--temporal",
      paramLabel = "HOST:PORT",
      description = "Benchmark against this Temporal instead of the embedded test server.")
  String temporal;

  @Option(
      names = "--namespace",
      paramLabel = "NS",
      description = "Namespace on --temporal (default: default).")
  String namespace;

  @Option(
      names = "--projection",
      paramLabel = "JDBC_URL",
      description = "Projection database to use instead of a temporary SQLite file.")
  String projection;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    BenchConfig config = quick ? BenchConfig.quick() : BenchConfig.full();
    String temporalAddress = given("--temporal") ? blankToNull(temporal) : null;
    String projectionUrl = given("--projection") ? blankToNull(projection) : null;
    String ns =
        given("--namespace") && blankToNull(namespace) != null ? namespace.strip() : "default";
    if (scale) {
      if (anatomy || given("--temporal") || given("--projection")) {
        throw new ParameterException(
            spec.commandLine(),
            "--scale starts its own server and database: it takes no --anatomy, --temporal or"
                + " --projection.");
      }
      ScaleReport report =
          ScaleBench.run(
              quick ? ScaleConfig.quick() : ScaleConfig.full(),
              TemporalCli.locate(null).orElseGet(() -> TemporalCli.install(null)),
              err);
      try {
        report.plot(plot);
      } catch (IOException e) {
        throw new CliException(ExitCodes.ERROR, "Cannot write " + plot + ": " + e.getMessage(), e);
      }
      err.println("bench: curves drawn in " + plot.toAbsolutePath());
      return print(report::toJson, report::printTable);
    }
    if (anatomy) {
      List<AnatomyBench.ServerRun> runs =
          AnatomyBench.run(
              config,
              temporalAddress == null
                  ? TemporalCli.locate(null).orElseGet(() -> TemporalCli.install(null))
                  : null,
              temporalAddress,
              ns,
              projectionUrl,
              err);
      return print(() -> AnatomyBench.toJson(runs), table -> AnatomyBench.printTable(runs, table));
    }
    BenchReport report;
    try (Bench bench = new Bench(config, temporalAddress, ns, projectionUrl, err)) {
      err.println("bench: " + config.name() + " run on " + bench.target());
      err.flush();
      report = bench.run();
    }
    return print(report::toJson, report::printTable);
  }

  /** Prints the JSON object with {@code --json}, else the table, to standard output. */
  private int print(Supplier<String> asJson, Consumer<PrintWriter> asTable) {
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(asJson.get());
    } else {
      asTable.accept(out);
    }
    out.flush();
    return ExitCodes.OK;
  }

  /**
   * True when the option was typed on the command line: the CLI's environment defaults (e.g.
   * TEMPORAL_ADDRESS) do not redirect the bench.
   */
  private boolean given(String option) {
    ParseResult parsed = spec.commandLine().getParseResult();
    return parsed != null && parsed.hasMatchedOption(option);
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.strip();
  }
}
