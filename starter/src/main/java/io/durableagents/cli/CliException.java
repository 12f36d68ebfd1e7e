package io.durableagents.cli;

import java.util.Objects;

/**
 * An error the CLI reports as one line on stderr with a chosen exit code, without a stack trace
 * (unless {@code --verbose} or {@code AGENTS_DEBUG=1}).
 */
public class CliException extends RuntimeException {
  /** The process exit code, one of {@link ExitCodes}. */
  private final int exitCode;

  /** A failure the CLI reports with {@code message} and exits with {@code exitCode}. */
  public CliException(int exitCode, String message) {
    super(Objects.requireNonNull(message, "message"));
    this.exitCode = exitCode;
  }

  /**
   * A failure the CLI reports with {@code message} and exits with {@code exitCode}, caused by
   * {@code cause}.
   */
  public CliException(int exitCode, String message, Throwable cause) {
    super(Objects.requireNonNull(message, "message"), cause);
    this.exitCode = exitCode;
  }

  /** One of {@link ExitCodes}. */
  public int exitCode() {
    return exitCode;
  }
}
