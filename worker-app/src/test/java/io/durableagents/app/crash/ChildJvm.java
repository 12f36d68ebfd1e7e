package io.durableagents.app.crash;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A worker JVM started by a crash test: a main class of the test class path in a process of its
 * own, its stdout and stderr in a log file, without the caller's {@code TEMPORAL_*}/{@code
 * AGENTS_*} environment. {@link #kill()} is a SIGKILL ({@link Process#destroyForcibly()}).
 */
final class ChildJvm {
  /** Small and quick to start: workers are started again and again. */
  private static final List<String> OPTIONS =
      List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  /** Variables that would point a child process elsewhere than the test's server. */
  private static final List<String> AGENTS_VARIABLES =
      List.of(
          "TEMPORAL_ADDRESS",
          "TEMPORAL_NAMESPACE",
          "AGENTS_TASK_QUEUE",
          "AGENTS_PROJECTION_URL",
          "AGENTS_MODEL",
          "AGENTS_DEBUG",
          "AGENTS_HISTORY_LIMIT");

  private static final int TAIL_LINES = 25;

  private final String name;
  private final Process process;
  private final Path log;

  private ChildJvm(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  /** Starts {@code mainClass ARGS} in {@code dir}, its output in {@code dir/NAME.log}. */
  static ChildJvm start(
      String name, Path dir, String classpath, Class<?> mainClass, List<String> args)
      throws IOException {
    Path log = dir.resolve(name + ".log");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(OPTIONS);
    command.add("-cp");
    command.add(classpath);
    command.add(mainClass.getName());
    command.addAll(args);
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().keySet().removeAll(AGENTS_VARIABLES);
    return new ChildJvm(name, builder.start(), log);
  }

  /** Waits until the log has a line containing {@code ready}; throws if the process exits first. */
  ChildJvm awaitReady(String ready, Duration timeout) {
    try {
      await(name + " ready")
          .atMost(timeout)
          .pollInterval(Duration.ofMillis(50))
          .pollDelay(Duration.ZERO)
          .pollInSameThread()
          .until(
              () -> {
                if (Files.readString(log, StandardCharsets.UTF_8).contains(ready)) {
                  return true;
                }
                if (!process.isAlive()) {
                  throw new IllegalStateException(
                      name
                          + " exited with "
                          + process.exitValue()
                          + " before it was ready:\n"
                          + tail());
                }
                return false;
              });
    } catch (ConditionTimeoutException e) {
      throw new IllegalStateException(
          name + " was not ready within " + timeout + ":\n" + tail(), e);
    }
    return this;
  }

  /** SIGKILL, then waits until the process is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException(name + " (pid " + pid() + ") survived SIGKILL");
    }
  }

  String name() {
    return name;
  }

  long pid() {
    return process.pid();
  }

  Process process() {
    return process;
  }

  Path log() {
    return log;
  }

  /** The last lines of the log. */
  String tail() {
    return tail(log);
  }

  static String tail(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size()));
    } catch (IOException e) {
      return "(cannot read " + file.getFileName() + ": " + e.getMessage() + ")";
    }
  }
}
