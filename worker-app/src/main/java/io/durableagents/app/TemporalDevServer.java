package io.durableagents.app;

import io.durableagents.workflow.SessionSearchAttributes;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The real Temporal server, as the Temporal CLI's development server ({@code temporal server
 * start-dev}) in a child process: loopback only, state in a SQLite file, the sessions' search
 * attributes registered (unless {@link Options.Builder#registerSearchAttributes} says not to).
 * Unlike {@link EmbeddedTemporalServer} it moves work off dead workers' sticky queues, enforces
 * payload and history limits, and serves the Temporal Web UI.
 *
 * <pre>{@code
 * try (TemporalDevServer server = TemporalDevServer.start(
 *     TemporalDevServer.Options.newBuilder(cli).databaseFile(dir.resolve("temporal.db")).build())) {
 *   WorkflowServiceStubs service = AgentWorker.connect(server.address());
 *   ...
 * }
 * }</pre>
 */
public final class TemporalDevServer implements AutoCloseable {
  private static final Duration STOP_GRACE = Duration.ofSeconds(10);
  private static final int START_ATTEMPTS = 3;
  private static final Duration PORT_RACE_BACKOFF = Duration.ofMillis(500);

  private final Process process;
  private final int port;
  private final int uiPort;
  private final Path log;

  private TemporalDevServer(Process process, int port, int uiPort, Path log) {
    this.process = process;
    this.port = port;
    this.uiPort = uiPort;
    this.log = log;
  }

  /**
   * Starts the server and returns once it answers, its namespace exists and the attributes are
   * registered.
   */
  public static TemporalDevServer start(Options options) {
    Path log = options.logFile;
    try {
      if (log == null) {
        log = Files.createTempFile("temporal-dev-server", ".log");
        log.toFile().deleteOnExit();
      }
      if (log.getParent() != null) {
        Files.createDirectories(log.getParent());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create the server's log: " + e.getMessage(), e);
    }
    for (int attempt = 1; ; attempt++) {
      try {
        return startOnce(options, log);
      } catch (ExitedEarly e) {
        // The CLI picks its internal ports by binding and closing them, and the ports checked
        // free before the start can be taken before the server binds them: such a race ends
        // the process at once, and a second start, on newly chosen ports, is the remedy.
        if (attempt == START_ATTEMPTS || !e.portTaken()) {
          throw e;
        }
        sleep(PORT_RACE_BACKOFF.toMillis());
      }
    }
  }

  private static TemporalDevServer startOnce(Options options, Path log) {
    int port = options.port == 0 ? FreePorts.find() : options.port;
    int uiPort = options.uiPort < 0 ? -1 : options.uiPort == 0 ? FreePorts.find() : options.uiPort;
    List<String> command = new ArrayList<>();
    command.add(options.binary.toString());
    command.addAll(
        List.of("server", "start-dev", "--ip", "127.0.0.1", "--port", String.valueOf(port)));
    command.addAll(List.of("--log-level", "warn", "--log-format", "pretty"));
    if (uiPort < 0) {
      command.add("--headless");
    } else {
      command.addAll(List.of("--ui-port", String.valueOf(uiPort)));
    }
    if (options.databaseFile != null) {
      command.addAll(List.of("--db-filename", options.databaseFile.toString()));
    }
    if (options.registerSearchAttributes) {
      for (Map.Entry<String, String> attribute : SessionSearchAttributes.cliTypes().entrySet()) {
        command.addAll(
            List.of("--search-attribute", attribute.getKey() + "=" + attribute.getValue()));
      }
    }
    for (String dynamicConfig : options.dynamicConfig()) {
      command.addAll(List.of("--dynamic-config-value", dynamicConfig));
    }
    for (String pragma : options.sqlitePragmas) {
      command.addAll(List.of("--sqlite-pragma", pragma));
    }
    Process process;
    long logOffset;
    try {
      logOffset = Files.exists(log) ? Files.size(log) : 0;
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot run " + options.binary + ": " + e.getMessage(), e);
    }
    TemporalDevServer server = new TemporalDevServer(process, port, uiPort, log);
    try {
      server.awaitReady(options.startTimeout, options.registerSearchAttributes, logOffset);
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
    return server;
  }

  private void awaitReady(Duration timeout, boolean withAttributes, long logOffset) {
    long deadline = System.nanoTime() + timeout.toNanos();
    RuntimeException last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        String output = logSince(logOffset);
        throw new ExitedEarly(
            "The Temporal dev server exited with "
                + process.exitValue()
                + " before it answered on "
                + address()
                + lastError(output).map(error -> " (" + error + ")").orElse("")
                + ":\n"
                + logTail(),
            output);
      }
      try {
        if (answers(withAttributes)) {
          return;
        }
      } catch (RuntimeException e) {
        last = e;
      }
      sleep(200);
    }
    throw new IllegalStateException(
        "The Temporal dev server did not answer on "
            + address()
            + " within "
            + timeout
            + (last == null ? "" : " (" + last.getMessage() + ")")
            + ":\n"
            + logTail(),
        last);
  }

  /**
   * Health check, namespace {@code default} described, and (when registered) every session
   * attribute listed.
   */
  private boolean answers(boolean withAttributes) {
    WorkflowServiceStubs service =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(address()).build());
    OperatorServiceStubs operator =
        OperatorServiceStubs.newServiceStubs(
            OperatorServiceStubsOptions.newBuilder()
                .setTarget(address())
                .validateAndBuildWithDefaults());
    try {
      service.healthCheck();
      service
          .blockingStub()
          .withDeadlineAfter(2, TimeUnit.SECONDS)
          .describeNamespace(DescribeNamespaceRequest.newBuilder().setNamespace("default").build());
      Map<String, ?> custom =
          operator
              .blockingStub()
              .withDeadlineAfter(2, TimeUnit.SECONDS)
              .listSearchAttributes(
                  ListSearchAttributesRequest.newBuilder().setNamespace("default").build())
              .getCustomAttributesMap();
      return !withAttributes
          || custom.keySet().containsAll(SessionSearchAttributes.cliTypes().keySet());
    } finally {
      operator.shutdownNow();
      service.shutdownNow();
    }
  }

  /** The frontend's gRPC address, {@code 127.0.0.1:PORT}. */
  public String address() {
    return "127.0.0.1:" + port;
  }

  /** The frontend's gRPC port, the one chosen when 0 was asked for. */
  public int port() {
    return port;
  }

  /** The Web UI's URL, or null when started headless. */
  public String uiUrl() {
    return uiPort < 0 ? null : "http://127.0.0.1:" + uiPort;
  }

  /** The server process's id, e.g. to kill it in a test. */
  public long pid() {
    return process.pid();
  }

  /** Where the server's output goes. */
  public Path log() {
    return log;
  }

  /** Stops the server by its PID: SIGTERM, then SIGKILL if it has not exited within 10 s. */
  @Override
  public void close() {
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly().waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private String logTail() {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(cannot read " + log + ")";
    }
  }

  /** What the server wrote to the log from {@code offset} on. */
  private String logSince(long offset) {
    try (SeekableByteChannel channel = Files.newByteChannel(log)) {
      channel.position(Math.min(offset, channel.size()));
      return new String(Channels.newInputStream(channel).readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** The CLI's last {@code Error: ...} line, the reason it stopped, else its last line. */
  private static Optional<String> lastError(String output) {
    List<String> lines = output.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    return lines.stream()
        .filter(line -> line.startsWith("Error:"))
        .reduce((first, second) -> second)
        .or(() -> lines.isEmpty() ? Optional.empty() : Optional.of(lines.get(lines.size() - 1)));
  }

  /** The process ended before it answered; {@link #portTaken} when a port was in use. */
  private static final class ExitedEarly extends IllegalStateException {
    private static final long serialVersionUID = 1L;
    private final transient String output;

    ExitedEarly(String message, String output) {
      super(message);
      this.output = output;
    }

    boolean portTaken() {
      return output.contains("address already in use");
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the Temporal dev server", e);
    }
  }

  /** The dynamic configuration values of {@link Options.Builder#workerVersioning()}. */
  public static final List<String> WORKER_VERSIONING =
      List.of("system.enableDeploymentVersions=true", "system.enableSendTargetVersionChanged=true");

  /**
   * The dynamic configuration values every start adds unless {@link
   * Options.Builder#serverDispatchDefaults()} says not to. The server's history service hands a new
   * workflow or activity task to matching when its transfer queue reader next polls, and the reader
   * of each history shard polls at most {@code history.transferProcessorMaxPollRPS} times a second
   * (default 20): on the dev server's single shard a task waited up to 50 ms, about 37 ms on
   * average, so a step of a model turn and a tool took about 104 ms instead of 28
   * (docs/benchmarks.md, "what sets the wait"). The reader polls when tasks arrive, never in a
   * loop, so the higher limit costs nothing while idle.
   */
  public static final List<String> FAST_DISPATCH =
      List.of("history.transferProcessorMaxPollRPS=1000");

  /** How to start a {@link TemporalDevServer}. */
  public static final class Options {
    private final Path binary;
    private final int port;
    private final int uiPort;
    private final Path databaseFile;
    private final Path logFile;
    private final List<String> dynamicConfig;
    private final List<String> sqlitePragmas;
    private final Duration startTimeout;
    private final boolean registerSearchAttributes;
    private final boolean fastDispatch;

    private Options(Builder builder) {
      this.binary = builder.binary;
      this.port = builder.port;
      this.uiPort = builder.uiPort;
      this.databaseFile = builder.databaseFile;
      this.logFile = builder.logFile;
      this.dynamicConfig = List.copyOf(builder.dynamicConfig);
      this.sqlitePragmas = List.copyOf(builder.sqlitePragmas);
      this.startTimeout = builder.startTimeout;
      this.registerSearchAttributes = builder.registerSearchAttributes;
      this.fastDispatch = builder.fastDispatch;
    }

    /** {@link #FAST_DISPATCH} (each unless given a value of its own), then the values given. */
    List<String> dynamicConfig() {
      List<String> values = new ArrayList<>();
      if (fastDispatch) {
        for (String value : FAST_DISPATCH) {
          String key = value.substring(0, value.indexOf('=') + 1);
          if (dynamicConfig.stream().noneMatch(given -> given.startsWith(key))) {
            values.add(value);
          }
        }
      }
      values.addAll(dynamicConfig);
      return values;
    }

    /** Options for the CLI binary at {@code binary} (see {@link TemporalCli#locate}). */
    public static Builder newBuilder(Path binary) {
      return new Builder(binary);
    }

    /** Builds {@link Options}; see {@link Options#newBuilder(Path)}. */
    public static final class Builder {
      private final Path binary;
      private int port;
      private int uiPort = -1;
      private Path databaseFile;
      private Path logFile;
      private final List<String> dynamicConfig = new ArrayList<>();
      private final List<String> sqlitePragmas = new ArrayList<>();
      private Duration startTimeout = Duration.ofSeconds(60);
      private boolean registerSearchAttributes = true;
      private boolean fastDispatch = true;

      private Builder(Path binary) {
        this.binary = Objects.requireNonNull(binary, "binary");
      }

      /** The frontend port; 0 (the default) picks a free one. */
      public Builder port(int port) {
        this.port = port;
        return this;
      }

      /** The Web UI's port; 0 picks a free one; -1 (the default) runs headless. */
      public Builder uiPort(int uiPort) {
        this.uiPort = uiPort;
        return this;
      }

      /**
       * Keep the server's state in this SQLite file (it survives restarts); in memory when unset.
       */
      public Builder databaseFile(Path databaseFile) {
        this.databaseFile = Objects.requireNonNull(databaseFile, "databaseFile");
        return this;
      }

      /** Append the server's output to this file; a temporary file when unset. */
      public Builder logFile(Path logFile) {
        this.logFile = Objects.requireNonNull(logFile, "logFile");
        return this;
      }

      /**
       * A dynamic configuration value, {@code KEY=JSON}, e.g. {@code limit.blobSize.error=2097152}.
       */
      public Builder dynamicConfig(String keyEqualsJson) {
        this.dynamicConfig.add(Objects.requireNonNull(keyEqualsJson, "keyEqualsJson"));
        return this;
      }

      /**
       * A pragma of the {@link #databaseFile}'s SQLite, {@code NAME=VALUE}, e.g. {@code
       * journal_mode=wal} and {@code synchronous=normal}: committed state still survives a {@code
       * kill -9} of the server (not a power loss), with far fewer fsyncs.
       */
      public Builder sqlitePragma(String nameEqualsValue) {
        this.sqlitePragmas.add(Objects.requireNonNull(nameEqualsValue, "nameEqualsValue"));
        return this;
      }

      /**
       * Turns on what worker versioning needs (docs/deploys.md): worker deployment versions, and
       * telling pinned workflow runs when a newer version is the target, so idle sessions continue
       * as new onto it. Harmless to unversioned workers.
       */
      public Builder workerVersioning() {
        WORKER_VERSIONING.forEach(this::dynamicConfig);
        return this;
      }

      /**
       * Leaves out {@link #FAST_DISPATCH}: the server dispatches tasks at its own default pace, as
       * {@code temporal server start-dev} does when started by hand (the bench's anatomy compares
       * both).
       */
      public Builder serverDispatchDefaults() {
        this.fastDispatch = false;
        return this;
      }

      /**
       * Whether the server starts with the sessions' search attributes (default true); false gives
       * a namespace without them, as a server whose operator never created them.
       */
      public Builder registerSearchAttributes(boolean register) {
        this.registerSearchAttributes = register;
        return this;
      }

      /**
       * How long the server may take to answer before {@link TemporalDevServer#start} fails
       * (default 60 s).
       */
      public Builder startTimeout(Duration startTimeout) {
        this.startTimeout = Objects.requireNonNull(startTimeout, "startTimeout");
        return this;
      }

      /** The options; refuses a port outside 0-65535 or a UI port outside -1-65535. */
      public Options build() {
        if (port < 0 || port > 65535) {
          throw new IllegalArgumentException("port must be 0..65535, got " + port);
        }
        if (uiPort < -1 || uiPort > 65535) {
          throw new IllegalArgumentException("uiPort must be -1..65535, got " + uiPort);
        }
        return new Options(this);
      }
    }
  }
}
