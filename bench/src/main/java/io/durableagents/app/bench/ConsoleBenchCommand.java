package io.durableagents.app.bench;

import io.durableagents.cli.ExitCodes;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/**
 * {@code agents bench console [--sessions N] [--pending N] [--requests N] [--json] [--projection
 * JDBC_URL]}: the approvals inbox and the session list at scale ({@link ConsoleBench}). Progress
 * goes to stderr; the table (or with {@code --json} one JSON object) to stdout.
 */
@Command(
    name = "console",
    description =
        "Time the console's approvals inbox and session list over HTTP against a PostgreSQL"
            + " projection seeded with many sessions and pending approvals: p50 / p95 / max per"
            + " route and a verdict against the 200 ms p95 target. Starts an embedded PostgreSQL"
            + " unless --projection names an empty database (taken only from the command line,"
            + " never from AGENTS_PROJECTION_URL); Temporal is not needed.")
public class ConsoleBenchCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--sessions",
      paramLabel = "N",
      description = "Sessions to seed (default: ${DEFAULT-VALUE}).")
  int sessions = ConsoleBench.Config.full().sessions();

  @Option(
      names = "--pending",
      paramLabel = "N",
      description =
          "Pending approvals to seed, one per waiting session (default: ${DEFAULT-VALUE}).")
  int pending = ConsoleBench.Config.full().pending();

  @Option(
      names = "--requests",
      paramLabel = "N",
      description = "Timed requests per route (default: ${DEFAULT-VALUE}).")
  int requests = ConsoleBench.Config.full().requests();

  @Option(
      names = "--warmup",
      paramLabel = "N",
      description = "Untimed rounds of every route first (default: ${DEFAULT-VALUE}).")
  int warmup = ConsoleBench.Config.full().warmup();

  @Option(
      names = "--json",
      description = "Print one JSON object of the figures instead of the table.")
  boolean json;

  @Option(
      names = "--projection",
      paramLabel = "JDBC_URL",
      description =
          "An empty PostgreSQL database (jdbc:postgresql://...) to migrate and seed instead of an"
              + " embedded server; the seeded rows stay there.")
  String projection;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    ConsoleBench.Config config;
    try {
      config = new ConsoleBench.Config(sessions, pending, requests, warmup);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage() + ".");
    }
    String url = given("--projection") && !projection.isBlank() ? projection.strip() : null;
    ConsoleBenchReport report;
    try (ConsoleBench bench = new ConsoleBench(config, url, err)) {
      report = bench.run();
    }
    out.println(json ? report.toJson() : table(report));
    out.flush();
    return ExitCodes.OK;
  }

  private static String table(ConsoleBenchReport report) {
    StringWriter text = new StringWriter();
    try (PrintWriter writer = new PrintWriter(text)) {
      report.printTable(writer);
    }
    return text.toString().stripTrailing();
  }

  /** True when the option was typed: environment defaults do not redirect the bench. */
  private boolean given(String option) {
    ParseResult parsed = spec.commandLine().getParseResult();
    return parsed != null && parsed.hasMatchedOption(option);
  }
}
