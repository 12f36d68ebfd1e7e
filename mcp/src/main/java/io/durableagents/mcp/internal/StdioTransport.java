package io.durableagents.mcp.internal;

import io.durableagents.mcp.McpServerOptions;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A stdio MCP server's process as the client's transport: newline-delimited JSON-RPC on its
 * standard input and output, its logs on standard error.
 *
 * <p>In place of the SDK's {@code StdioClientTransport}, which stops reading at the first line on
 * stdout that is not a JSON-RPC message (every later answer is lost, each call waits out its
 * timeout), and keeps its process to itself (a process that exits, or never starts, is noticed only
 * when the initialization times out, without its exit code). Here a line that is not JSON-RPC is
 * skipped with a warning, and a process that ends is reported at once, with its exit code and its
 * last line on stderr, to the listener of {@link #onLost} (which fails whatever waits on it).
 */
final class StdioTransport implements McpClientTransport {
  private static final Logger log = LoggerFactory.getLogger(StdioTransport.class);

  /** Characters of a skipped or stderr line shown in warnings and messages. */
  private static final int SHOWN = 300;

  /** How long an ended process is given to exit and flush its stderr before it is reported. */
  private static final long SETTLE_MILLIS = 1_000;

  private final McpServerOptions options;
  private final ExecutorService writer;
  private final CompletableFuture<Process> started = new CompletableFuture<>();
  private final AtomicBoolean ended = new AtomicBoolean();
  private final CompletableFuture<String> lost = new CompletableFuture<>();
  private volatile Runnable onLost = () -> {};
  private volatile String lastErrorLine;
  private volatile boolean closing;
  private volatile Thread stderrReader;

  StdioTransport(McpServerOptions options) {
    this.options = options;
    this.writer =
        Executors.newSingleThreadExecutor(
            runnable -> daemon("mcp-stdin-" + options.name(), runnable, false));
  }

  /**
   * Runs {@code listener} once, on a thread of its own, when the process exits or closes its
   * standard output while the transport is open; {@link #lost()} says why by then.
   */
  void onLost(Runnable listener) {
    this.onLost = listener;
  }

  /**
   * Why the process can no longer answer ("the process exited with code 3 (stderr: ...)"), or null
   * while it can; a process that is ending is waited for a moment, for its exit code.
   */
  String lost() {
    Process process = process();
    if (!started.isDone() || (process != null && process.isAlive() && !ended.get())) {
      return lost.getNow(null);
    }
    try {
      return lost.get(SETTLE_MILLIS * 2, TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** The process, or null when it did not start (yet). */
  private Process process() {
    return started.isDone() && !started.isCompletedExceptionally() ? started.join() : null;
  }

  /** Whether the process can no longer answer. */
  private boolean hasEnded() {
    return ended.get() || lost.isDone();
  }

  /** Starts the process; a failure to start fails the first message sent, not this. */
  @Override
  public Mono<Void> connect(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
    return Mono.fromRunnable(() -> start(handler));
  }

  private void start(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
    if (started.isDone()) {
      return;
    }
    List<String> command = new ArrayList<>();
    command.add(options.command());
    command.addAll(options.args());
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(options.env());
    Process process;
    try {
      process = builder.start();
    } catch (IOException | RuntimeException e) {
      String why = "the process did not start: " + e.getMessage();
      lost.complete(why);
      started.completeExceptionally(new IllegalStateException(why, e));
      return;
    }
    // The stderr reader is known before the others start: a process that ends at once is reported
    // with its last line on stderr.
    stderrReader = daemon("mcp-stderr-" + options.name(), () -> readStderr(process), false);
    started.complete(process);
    stderrReader.start();
    daemon("mcp-stdout-" + options.name(), () -> readStdout(process, handler), true);
    daemon(
        "mcp-exit-" + options.name(),
        () -> {
          try {
            process.waitFor();
          } catch (InterruptedException e) {
            return;
          }
          ended(process);
        },
        true);
  }

  private void readStdout(
      Process process, Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
    try (BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        JSONRPCMessage message;
        try {
          message = McpSchema.deserializeJsonRpcMessage(McpConnection.JSON, line);
        } catch (IOException | RuntimeException e) {
          log.warn(
              "MCP server '{}' wrote a line on stdout that is not a JSON-RPC message, skipped"
                  + " (a stdio server writes its logs to stderr): {}",
              options.name(),
              shown(line));
          continue;
        }
        handler
            .apply(Mono.just(message))
            .subscribe(
                null,
                e ->
                    log.debug("MCP server '{}': handling a message failed: {}", options.name(), e));
      }
    } catch (IOException e) {
      // The stream is closed: the process ended, or the transport closed it.
    }
    ended(process);
  }

  private void readStderr(Process process) {
    try (BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        log.debug("MCP server '{}' stderr: {}", options.name(), line);
        // A stack trace's "at ..." lines say less than the line that names the error.
        if (!line.isBlank() && !Character.isWhitespace(line.charAt(0))) {
          lastErrorLine = line.strip();
        }
      }
    } catch (IOException e) {
      // The stream is closed: the process ended, or the transport closed it.
    }
  }

  /** The process ended or closed its stdout: reported once, unless the transport is closing. */
  private void ended(Process process) {
    if (closing || !ended.compareAndSet(false, true)) {
      return;
    }
    try {
      // Its exit code and its last words on stderr make the report.
      if (process.waitFor(SETTLE_MILLIS, TimeUnit.MILLISECONDS) && stderrReader != null) {
        stderrReader.join(SETTLE_MILLIS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    String why =
        process.isAlive()
            ? "the process closed its standard output"
            : "the process exited with code " + process.exitValue();
    String stderr = lastErrorLine;
    lost.complete(stderr == null ? why : why + " (stderr: " + shown(stderr) + ")");
    if (!closing) {
      try {
        onLost.run();
      } catch (RuntimeException e) {
        log.warn(
            "MCP server '{}': {}; dropping its connection failed: {}",
            options.name(),
            why,
            e.toString());
      }
    }
  }

  @Override
  public Mono<Void> sendMessage(JSONRPCMessage message) {
    return Mono.fromFuture(() -> CompletableFuture.runAsync(() -> write(message), writer))
        .onErrorMap(CompletionException.class, e -> e.getCause() == null ? e : e.getCause());
  }

  private void write(JSONRPCMessage message) {
    Process process;
    try {
      process = started.join();
    } catch (CompletionException | CancellationException e) {
      throw new IllegalStateException(
          closing ? "the connection is closed" : lost.getNow("the process did not start"), e);
    }
    if (closing || hasEnded()) {
      String why = lost();
      throw new IllegalStateException(why != null ? why : "the connection is closed");
    }
    try {
      // Compact JSON holds no line break: one message, one line.
      byte[] line =
          (McpConnection.JSON.writeValueAsString(message) + "\n").getBytes(StandardCharsets.UTF_8);
      OutputStream stdin = process.getOutputStream();
      stdin.write(line);
      stdin.flush();
    } catch (IOException e) {
      String why = lost();
      throw new IllegalStateException(
          why != null ? why : "the process does not read its standard input: " + e.getMessage(), e);
    }
  }

  /**
   * Closes the process's standard input, as the MCP specification asks, then stops it if it has not
   * exited within a second (SIGTERM, then SIGKILL).
   */
  @Override
  public Mono<Void> closeGracefully() {
    return Mono.<Void>fromRunnable(this::stop).subscribeOn(Schedulers.boundedElastic());
  }

  private void stop() {
    closing = true;
    writer.shutdownNow();
    Process process = process();
    if (process == null) {
      started.cancel(false);
      return;
    }
    try {
      process.getOutputStream().close();
    } catch (IOException e) {
      // Gone already.
    }
    try {
      if (!process.waitFor(1, TimeUnit.SECONDS)) {
        process.destroy();
        if (!process.waitFor(2, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
    return McpConnection.JSON.convertValue(data, typeRef);
  }

  private static String shown(String line) {
    return line.length() <= SHOWN ? line : line.substring(0, SHOWN) + "...";
  }

  private static Thread daemon(String name, Runnable work, boolean start) {
    Thread thread = new Thread(work, name);
    thread.setDaemon(true);
    if (start) {
      thread.start();
    }
    return thread;
  }
}
