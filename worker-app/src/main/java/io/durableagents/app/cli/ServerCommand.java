package io.durableagents.app.cli;

import io.durableagents.app.EmbeddedTemporalServer;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code agents server}: the embedded (in-memory) Temporal server alone, until Ctrl-C. */
@Command(
    name = "server",
    description = {
      "Run the embedded Temporal server on 127.0.0.1:PORT until Ctrl-C.",
      "It keeps everything in memory: sessions end with the process."
    },
    footer = "")
public class ServerCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--port", paramLabel = "PORT", defaultValue = "7233", description = "Port to listen on (default: ${DEFAULT-VALUE}).")
  int port;

  @Override
  public Integer call() {
    Ports.requireValid(spec, port);
    PrintWriter out = spec.commandLine().getOut();
    Foreground foreground = Foreground.install(spec.commandLine().getErr());
    EmbeddedTemporalServer server = foreground.own(EmbeddedTemporalServer.start(port));
    out.println("Temporal server listening on " + server.address());
    out.println("In memory: sessions last as long as this process. Ctrl-C to stop.");
    out.flush();
    foreground.awaitShutdown();
    return 0;
  }
}
