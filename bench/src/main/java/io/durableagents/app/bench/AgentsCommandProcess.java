package io.durableagents.app.bench;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * One {@code agents} command in a JVM of its own ({@code io.durableagents.app.cli.AgentsMain ARGS},
 * on this JVM's class path), its output appended to a log, without the caller's {@code
 * TEMPORAL_*}/{@code AGENTS_*} environment or {@code temporal.toml}: a worker, the console or one
 * CLI decision (the chaos suite), or a baseline worker (the bench). {@link #kill()} is a SIGKILL.
 */
public final class AgentsCommandProcess {
  private static final String MAIN = "io.durableagents.app.cli.AgentsMain";

  /**
   * Small and quick to start: three workers, the console and the suite share two cores, and the
   * workers and the console are started again and again (the C2 compiler costs more CPU than a run
   * of a few minutes wins back).
   */
  public static final List<String> SERVICE_JVM =
      List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  /** A command that runs for a moment. */
  public static final List<String> COMMAND_JVM =
      List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  /**
   * This JVM's class path, each entry absolute: the children run in the run's directory. The
   * launcher has expanded {@code lib/*} already.
   */
  private static final String CLASS_PATH =
      Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator, -1))
          .filter(entry -> !entry.isEmpty())
          .map(entry -> Path.of(entry).toAbsolutePath().toString())
          .collect(Collectors.joining(File.pathSeparator));

  private final String name;
  private final Process process;
  private final Path log;
  private final long logOffset;

  private AgentsCommandProcess(String name, Process process, Path log, long logOffset) {
    this.name = name;
    this.process = process;
    this.log = log;
    this.logOffset = logOffset;
  }

  /**
   * Starts {@code agents ARGS} in {@code dir} in a JVM with {@code jvmOptions}, with {@code env} on
   * top of the cleaned environment, its output appended to {@code log}.
   */
  public static AgentsCommandProcess start(
      String name,
      Path dir,
      Path log,
      List<String> jvmOptions,
      List<String> args,
      Map<String, String> env) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(CLASS_PATH);
    command.add(MAIN);
    command.addAll(args);
    try {
      long offset = Files.exists(log) ? Files.size(log) : 0;
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      Map<String, String> childEnv = builder.environment();
      childEnv
          .keySet()
          .removeIf(variable -> variable.startsWith("TEMPORAL_") || variable.startsWith("AGENTS_"));
      // An empty config file, so a temporal.toml in the user's home adds no profile.
      childEnv.put("TEMPORAL_CONFIG_FILE", emptyConfig(dir).toString());
      childEnv.putAll(env);
      return new AgentsCommandProcess(name, builder.start(), log, offset);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name, e);
    }
  }

  /**
   * Waits until this process printed a line containing {@code ready}: true, or false when it exited
   * first or {@code timeout} passed (then it is killed).
   */
  public boolean awaitReady(String ready, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (output().contains(ready)) {
        return true;
      }
      if (!process.isAlive()) {
        return output().contains(ready);
      }
      Thread.sleep(50);
    }
    kill();
    return false;
  }

  /** Waits for the process to exit; its exit code, or -1 (killed) after {@code timeout}. */
  public int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      kill();
      return -1;
    }
    return process.exitValue();
  }

  /** SIGKILL, then waits until the process is gone. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException(name + " (pid " + pid() + ") survived SIGKILL");
    }
  }

  /** Whether the process still runs. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /** The name it was started with (its log's name). */
  public String name() {
    return name;
  }

  /** Its operating-system process id. */
  public long pid() {
    return process.pid();
  }

  /** The CPU time this process has used so far (zero where the OS does not say). */
  public Duration cpuTime() {
    return process.toHandle().info().totalCpuDuration().orElse(Duration.ZERO);
  }

  /** What this process wrote to its log. */
  public String output() {
    try (SeekableByteChannel channel = Files.newByteChannel(log)) {
      channel.position(Math.min(logOffset, channel.size()));
      return new String(Channels.newInputStream(channel).readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** The last lines of this process's output. */
  public String tail(int lines) {
    List<String> all = output().lines().toList();
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }

  private static Path emptyConfig(Path dir) throws IOException {
    Path file = dir.resolve("no-profiles.toml");
    if (!Files.exists(file)) {
      Files.writeString(file, "");
    }
    return file;
  }
}
