package io.durableagents.app.testing;

import io.durableagents.app.TemporalCli;
import io.durableagents.app.TemporalDevServer;
import java.nio.file.Path;

/**
 * The real Temporal server for end-to-end tests: the CLI's dev server on free loopback ports, its
 * database and log in the test's directory. Finds the CLI like {@code agents dev} does and, when
 * there is none, installs it with {@code scripts/install-temporal-cli} (never skips).
 */
public final class RealTemporal {
  private static Path cli;

  private RealTemporal() {}

  /** A headless dev server keeping its state and log in {@code dir}. */
  public static TemporalDevServer start(Path dir) {
    return start(
        TemporalDevServer.Options.newBuilder(cli())
            .databaseFile(dir.resolve("temporal.db"))
            .logFile(dir.resolve("temporal-server.log")));
  }

  /** A dev server with these options (the binary is already set). */
  public static TemporalDevServer start(TemporalDevServer.Options.Builder options) {
    return TemporalDevServer.start(options.build());
  }

  /** The Temporal CLI binary, installed on first use if it is not found. */
  public static synchronized Path cli() {
    if (cli == null) {
      cli = TemporalCli.locate(null).orElseGet(() -> TemporalCli.install(null));
    }
    return cli;
  }
}
