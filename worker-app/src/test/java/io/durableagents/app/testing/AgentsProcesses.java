package io.durableagents.app.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.app.cli.AgentsMain;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code agents} commands as child JVMs of a test, in a working directory and without the caller's
 * {@code TEMPORAL_*}/{@code AGENTS_*} environment (the Temporal CLI included) or {@code
 * temporal.toml}, plus what {@link #AgentsProcesses(Path, Map)} and {@link #environment} set: run
 * to completion, or started in the background until they print a ready line. {@link #close()} kills
 * the background ones and the processes they started (a Temporal dev server).
 */
public final class AgentsProcesses implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * How long a background command may take to print its ready line: a JVM that starts, connects and
   * opens its store takes seconds on an idle machine and much longer on a busy one.
   */
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(3);

  /** What a command printed, and how it exited. */
  public record Result(int exitCode, String out, String err) {
    public JsonNode json() throws IOException {
      return JSON.readTree(out);
    }
  }

  private final Path workDir;
  private final Map<String, String> env;
  private final Map<String, String> environment = new HashMap<>();
  private final List<Process> background = new ArrayList<>();
  private final Map<String, Process> backgroundByName = new HashMap<>();

  // Synchronized on purpose: one pump thread per background process appends, the test reads.
  @SuppressWarnings("JdkObsolete")
  private final StringBuffer backgroundOutput = new StringBuffer();

  public AgentsProcesses(Path workDir) {
    this(workDir, Map.of());
  }

  /**
   * Children that see {@code env} (e.g. {@code TEMPORAL_ADDRESS}) on top of the cleaned
   * environment.
   */
  public AgentsProcesses(Path workDir, Map<String, String> env) {
    this.workDir = workDir;
    this.env = Map.copyOf(env);
  }

  /** Sets {@code name} to {@code value} in the environment of the commands started from now on. */
  public AgentsProcesses environment(String name, String value) {
    environment.put(name, value);
    return this;
  }

  /**
   * Runs {@code agents ARGS} to completion; fails the test if it takes longer than {@code timeout}.
   */
  public Result run(Duration timeout, String... args) throws IOException, InterruptedException {
    return run(timeout, null, args);
  }

  /**
   * {@link #run(Duration, String...)} with {@code stdin} (null: none) as the command's standard
   * input.
   */
  public Result run(Duration timeout, byte[] stdin, String... args)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile(workDir, "out", ".txt");
    Path err = Files.createTempFile(workDir, "err", ".txt");
    ProcessBuilder builder = command(args).redirectOutput(out.toFile()).redirectError(err.toFile());
    if (stdin != null) {
      builder.redirectInput(
          Files.write(Files.createTempFile(workDir, "in", ".txt"), stdin).toFile());
    }
    Process process = builder.start();
    if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(
          "agents "
              + String.join(" ", args)
              + " did not finish in "
              + timeout
              + "; stderr: "
              + Files.readString(err)
              + "\nbackground processes:\n"
              + backgroundOutput);
    }
    return new Result(
        process.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  /**
   * Starts {@code agents ARGS} in the background, its output kept under {@code name}; completes
   * with its first line containing {@code ready}.
   */
  public CompletableFuture<String> start(String ready, String name, String... args)
      throws IOException {
    Process process = command(args).redirectErrorStream(true).start();
    background.add(process);
    backgroundByName.put(name, process);
    CompletableFuture<String> readyLine = new CompletableFuture<>();
    Thread pump =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                  backgroundOutput.append('[').append(name).append("] ").append(line).append('\n');
                  if (line.contains(ready)) {
                    readyLine.complete(line);
                  }
                }
              } catch (IOException e) {
                // The process went away; whoever awaits the ready line hears of it.
              }
              readyLine.completeExceptionally(
                  new IllegalStateException("exited before it was ready"));
            },
            "pump-" + name);
    pump.setDaemon(true);
    pump.start();
    return readyLine;
  }

  /** Waits for a ready line of {@link #start}; fails the test with the output so far. */
  public void await(CompletableFuture<String> readyLine, String name) throws InterruptedException {
    try {
      readyLine.get(READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (TimeoutException | ExecutionException e) {
      throw new AssertionError(
          name + " was not ready (" + e.getMessage() + "); output:\n" + backgroundOutput, e);
    }
  }

  /** {@link #start} and {@link #await}, named after the command. */
  public void startAndAwait(String ready, String... args) throws IOException, InterruptedException {
    await(start(ready, args[0], args), args[0]);
  }

  /** The background process last started under {@code name}. */
  public Process process(String name) {
    Process process = backgroundByName.get(name);
    if (process == null) {
      throw new IllegalArgumentException("no background process named " + name);
    }
    return process;
  }

  /** Everything the background processes printed, each line prefixed with its process's name. */
  public String backgroundOutput() {
    return backgroundOutput.toString();
  }

  @Override
  public void close() {
    for (Process process : background) {
      // SIGKILL leaves no shutdown hook to stop what the command started: stop that first.
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
    try {
      for (Process process : background) {
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private ProcessBuilder command(String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(AgentsMain.class.getName());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile());
    Map<String, String> childEnv = builder.environment();
    childEnv.keySet().removeIf(name -> name.startsWith("TEMPORAL_") || name.startsWith("AGENTS_"));
    // An empty config file, so a temporal.toml in the user's home adds no profile to the children.
    childEnv.put("TEMPORAL_CONFIG_FILE", emptyConfigFile().toString());
    childEnv.putAll(env);
    childEnv.putAll(environment);
    return builder;
  }

  private Path emptyConfigFile() {
    Path file = workDir.resolve("no-profiles.toml");
    try {
      if (!Files.exists(file)) {
        Files.writeString(file, "");
      }
      return file;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
