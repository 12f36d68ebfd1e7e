package io.durableagents.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import picocli.CommandLine;

/** Runs the {@code agents} command line in-process and captures what it prints. */
final class CliHarness {
  record Outcome(int exitCode, String out, String err) {}

  private CliHarness() {}

  static Outcome run(Map<String, String> env, Object[] extraSubcommands, String... args) {
    CommandLine commandLine = AgentsCli.commandLine(env, extraSubcommands);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exitCode = commandLine.execute(args);
    return new Outcome(exitCode, out.toString(), err.toString());
  }

  static Outcome run(String... args) {
    return run(Map.of(), new Object[0], args);
  }
}
