package io.durableagents.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One of the checkout's idempotent installers, {@code scripts/NAME}, which print what they
 * installed on their last line. Shared by the commands and the tests that install their tools on
 * first use, so there is one install procedure per tool: the script, which {@code .ci/run} calls
 * too.
 */
public final class InstallScript {
  private static final Duration TIMEOUT = Duration.ofMinutes(15);

  private final Path script;

  private InstallScript(Path script) {
    this.script = script;
  }

  /**
   * {@code scripts/NAME} of the checkout this code was built in (the first directory up from its
   * jar or classes directory that has it), else of the working directory or one of its parents.
   *
   * @throws IllegalStateException when neither has it (e.g. a jar copied out of the checkout)
   */
  public static InstallScript named(String name) {
    return Stream.of(codeLocation(), Optional.of(Path.of("").toAbsolutePath()))
        .flatMap(Optional::stream)
        .map(start -> findUp(start, name))
        .flatMap(Optional::stream)
        .findFirst()
        .map(InstallScript::new)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "no scripts/" + name + " above " + Path.of("").toAbsolutePath()));
  }

  /** The script's path. */
  public Path path() {
    return script;
  }

  /**
   * Runs the script, its standard error going to {@code errorLog} (null: this process's standard
   * error), and returns the last line it printed on standard output.
   *
   * @throws IllegalStateException when it fails, with its last line of standard error when that
   *     went to {@code errorLog}
   */
  public String run(Path errorLog) {
    ProcessBuilder builder = new ProcessBuilder("bash", script.toString());
    builder.redirectError(
        errorLog == null
            ? ProcessBuilder.Redirect.INHERIT
            : ProcessBuilder.Redirect.appendTo(errorLog.toFile()));
    try {
      Process process = builder.start();
      process.getOutputStream().close();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(TIMEOUT.toMinutes(), TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException(script.getFileName() + " took over " + TIMEOUT);
      }
      List<String> lines = out.strip().lines().toList();
      if (process.exitValue() != 0 || lines.isEmpty()) {
        throw new IllegalStateException(failure(process.exitValue(), errorLog));
      }
      return lines.get(lines.size() - 1);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot run " + script, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while running " + script, e);
    }
  }

  private String failure(int exitCode, Path errorLog) throws IOException {
    String failed = script.getFileName() + " failed (exit " + exitCode + ")";
    if (errorLog == null) {
      return failed + "; its output is above";
    }
    String last =
        Files.readAllLines(errorLog, StandardCharsets.UTF_8).stream()
            .filter(line -> !line.isBlank())
            .reduce((first, second) -> second)
            .orElse("");
    return failed + (last.isEmpty() ? "" : ": " + last.strip()) + " (log: " + errorLog + ")";
  }

  private static Optional<Path> findUp(Path start, String name) {
    for (Path dir = start; dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve("scripts").resolve(name);
      if (Files.isRegularFile(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** The jar or classes directory of this class, e.g. worker-app/target/classes. */
  private static Optional<Path> codeLocation() {
    CodeSource source = InstallScript.class.getProtectionDomain().getCodeSource();
    if (source == null || source.getLocation() == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(Path.of(source.getLocation().toURI()).toAbsolutePath());
    } catch (URISyntaxException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
