package io.durableagents.app.testing;

import io.durableagents.app.TemporalCli;
import io.durableagents.app.TemporalDevServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

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
      cli = TemporalCli.locate(null).orElseGet(RealTemporal::install);
    }
    return cli;
  }

  private static Path install() {
    Path script = repositoryRoot().resolve("scripts").resolve("install-temporal-cli");
    try {
      Process process =
          new ProcessBuilder("bash", script.toString())
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(15, TimeUnit.MINUTES) || process.exitValue() != 0) {
        throw new IllegalStateException(script + " failed; output: " + out);
      }
      List<String> lines = out.strip().lines().toList();
      return Path.of(lines.get(lines.size() - 1));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The checkout: the first directory up from the working directory that has {@code scripts/}. */
  private static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null
        && !Files.isRegularFile(dir.resolve("scripts").resolve("install-temporal-cli"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException(
          "no scripts/install-temporal-cli above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }
}
