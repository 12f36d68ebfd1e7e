package io.durableagents.app.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Which Temporal server {@code agents server} and {@code agents dev} run: the Temporal CLI's dev
 * server, the CLI installed on first use; the embedded test server only with {@code --embedded} or
 * when the install fails, which the command says in one line.
 */
final class ServerChoice {
  /** Printed before a first-use install, which downloads the CLI (tens of seconds). */
  static final String INSTALLING_PREFIX = "Temporal CLI not found: installing it with ";

  /** The one line of a fallback to the embedded server; the reason goes between the brackets. */
  static final String FALLBACK_PREFIX = "Temporal CLI not installed (";

  static final String FALLBACK_SUFFIX =
      "): running the embedded test server, which keeps sessions in memory only, cannot move"
          + " sessions off a stopped or killed worker and enforces no payload or history limits;"
          + " run scripts/install-temporal-cli to install the CLI, or pass --temporal-cli PATH.";

  /** Installs the CLI and returns its binary; throws a RuntimeException saying why it cannot. */
  @FunctionalInterface
  interface Installer {
    Path install();
  }

  private ServerChoice() {}

  /**
   * The CLI binary to run, or empty for the embedded server.
   *
   * @param embedded {@code --embedded}: nothing is looked for or installed
   * @param found the binary found without installing (see {@code TemporalCli.locate})
   * @param installer called only when {@code found} is empty
   * @param progress where the installer writes its progress, named in the notice
   * @param err where the notice of an install, and of a fallback, goes
   */
  static Optional<Path> choose(
      boolean embedded,
      Supplier<Optional<Path>> found,
      Installer installer,
      Path progress,
      PrintWriter err) {
    if (embedded) {
      return Optional.empty();
    }
    Optional<Path> binary = found.get();
    if (binary.isPresent()) {
      return binary;
    }
    err.println(
        INSTALLING_PREFIX + "scripts/install-temporal-cli (once; progress in " + progress + ")");
    err.flush();
    try {
      return Optional.of(installer.install());
    } catch (RuntimeException e) {
      err.println(fallbackNotice(String.valueOf(e.getMessage())));
      err.flush();
      return Optional.empty();
    }
  }

  /** The line a fallback prints, on one line whatever {@code reason} holds. */
  static String fallbackNotice(String reason) {
    return FALLBACK_PREFIX + reason.strip().replaceAll("\\s*\\R\\s*", " ") + FALLBACK_SUFFIX;
  }
}
