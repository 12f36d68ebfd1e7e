package io.durableagents.app.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code agents server}: a Temporal server alone, until Ctrl-C (see {@link LocalServerOptions}).
 */
@Command(
    name = "server",
    description = {
      "Run a Temporal server on 127.0.0.1:PORT until Ctrl-C: the Temporal CLI's dev server",
      "(Web UI, state in .agents/temporal-PORT.db), the CLI installed on first use",
      "(scripts/install-temporal-cli); the embedded in-memory test server with --embedded",
      "or when the install fails."
    },
    footer = "")
public class ServerCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin LocalServerOptions server;

  @Override
  public Integer call() {
    Optional<Path> binary = server.validate();
    PrintWriter out = spec.commandLine().getOut();
    Foreground foreground = Foreground.install(spec.commandLine().getErr());
    server.start(binary, foreground, out);
    out.println("Ctrl-C to stop.");
    out.flush();
    foreground.awaitShutdown();
    return 0;
  }
}
