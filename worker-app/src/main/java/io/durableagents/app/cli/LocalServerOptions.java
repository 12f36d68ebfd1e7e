package io.durableagents.app.cli;

import io.durableagents.app.EmbeddedTemporalServer;
import io.durableagents.app.TemporalCli;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.cli.CliException;
import io.durableagents.cli.ExitCodes;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The Temporal server {@code agents server} and {@code agents dev} run on loopback: the real
 * development server of the Temporal CLI (state in {@code .agents/temporal-PORT.db}, so sessions
 * survive a restart; Web UI on {@code --ui-port}), the CLI installed on first use; the embedded
 * in-memory test server with {@code --embedded} or when the install fails (see {@link
 * ServerChoice}). A picocli mixin.
 */
public class LocalServerOptions {
  /** The first words of the line users and tests wait for. */
  static final String READY_PREFIX = "Temporal server listening on ";

  private static final Path STATE_DIRECTORY = Path.of(".agents");

  /** Where a first-use install of the Temporal CLI writes its progress. */
  static final Path INSTALL_LOG = STATE_DIRECTORY.resolve("install-temporal-cli.log");

  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      defaultValue = "7233",
      description = "Port of the Temporal server (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--ui-port",
      paramLabel = "PORT",
      description = "Port of the Temporal Web UI (default: PORT + 1000).")
  Integer uiPort;

  private String uiUrl;

  @Option(
      names = "--temporal-cli",
      paramLabel = "PATH",
      description =
          "The Temporal CLI binary (default: TEMPORAL_CLI, then 'temporal' on the PATH, then where scripts/install-temporal-cli puts it).")
  Path temporalCli;

  @Option(
      names = "--embedded",
      description =
          "Run the embedded in-memory test server instead of the Temporal CLI's dev server"
              + " (nothing is installed).")
  boolean embedded;

  /**
   * Checks the options and that the ports are free (usage errors, exit 2; a taken port, exit 1);
   * returns the binary of the real server, installing the Temporal CLI on first use, or empty for
   * the embedded one. Call before {@link #start}, and before anything else is started.
   */
  Optional<Path> validate() {
    Ports.requireValid(mixee, port);
    if (uiPort != null && (uiPort < 1 || uiPort > 65535)) {
      throw new ParameterException(
          mixee.commandLine(), "--ui-port must be between 1 and 65535, got " + uiPort);
    }
    if (embedded && (temporalCli != null || uiPort != null)) {
      throw new ParameterException(
          mixee.commandLine(),
          "--embedded runs the in-memory test server: it takes no --temporal-cli or --ui-port.");
    }
    Optional<Path> found;
    try {
      found = embedded ? Optional.empty() : TemporalCli.locate(temporalCli);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(mixee.commandLine(), "--temporal-cli: " + e.getMessage());
    }
    Ports.requireFree(port, "--port"); // before an install that a taken port would waste
    Optional<Path> binary =
        ServerChoice.choose(
            embedded, () -> found, this::install, INSTALL_LOG, mixee.commandLine().getErr());
    if (binary.isPresent() && uiPort() != 0) {
      Ports.requireFree(uiPort(), "--ui-port");
    }
    return binary;
  }

  /**
   * Starts the server on {@code binary} (from {@link #validate}), owned by {@code foreground}, and
   * prints the ready line ({@value #READY_PREFIX}ADDRESS ...); returns the address.
   */
  String start(Optional<Path> binary, Foreground foreground, PrintWriter out) {
    if (binary.isEmpty()) {
      EmbeddedTemporalServer server = foreground.own(EmbeddedTemporalServer.start(port));
      out.println(READY_PREFIX + server.address() + " (embedded test server, in memory)");
      out.flush();
      return server.address();
    }
    Path database = STATE_DIRECTORY.resolve("temporal-" + port + ".db");
    Path log = STATE_DIRECTORY.resolve("temporal-" + port + ".log");
    TemporalDevServer server;
    try {
      server =
          foreground.own(
              TemporalDevServer.start(
                  TemporalDevServer.Options.newBuilder(binary.get())
                      .port(port)
                      .uiPort(uiPort())
                      .databaseFile(database)
                      .logFile(log)
                      .workerVersioning()
                      .build()));
    } catch (IllegalStateException | UncheckedIOException e) {
      // The first line: the rest is the server's log, which stays in its file.
      String reason =
          String.valueOf(e.getMessage()).lines().findFirst().orElse("").replaceAll(":$", "");
      throw new CliException(ExitCodes.ERROR, reason + " (log: " + log + ")", e);
    }
    uiUrl = server.uiUrl();
    out.println(READY_PREFIX + server.address() + " (Web UI " + server.uiUrl() + ")");
    out.println(
        "Temporal dev server " + binary.get() + ": state in " + database + ", log in " + log + ".");
    out.flush();
    return server.address();
  }

  private Path install() {
    try {
      Files.createDirectories(STATE_DIRECTORY);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create " + STATE_DIRECTORY, e);
    }
    return TemporalCli.install(INSTALL_LOG);
  }

  int port() {
    return port;
  }

  /** The Web UI of the server {@link #start} started; null for the embedded one (it has none). */
  String uiUrl() {
    return uiUrl;
  }

  /** {@code --ui-port}, else PORT + 1000, else (beyond 65535) 0: any free port. */
  private int uiPort() {
    return uiPort != null ? uiPort : port + 1000 <= 65535 ? port + 1000 : 0;
  }
}
