package io.durableagents.mcp;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** An {@link McpTestServer} serving streamable HTTP (or holding its port silent) in a process. */
public final class McpServerProcess implements AutoCloseable {
  private final Process process;
  private final int port;

  private McpServerProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** The java command and arguments that run the test server with {@code mode}. */
  public static List<String> command(String... mode) {
    List<String> command =
        new java.util.ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                McpTestServer.class.getName()));
    command.addAll(List.of(mode));
    return command;
  }

  /** Starts an HTTP server on {@code port} (0: a free one) and waits until it serves. */
  public static McpServerProcess http(int port) throws Exception {
    return start("http", port);
  }

  /**
   * Starts a server that accepts connections on a free port and never answers on them, and waits
   * until it listens.
   */
  public static McpServerProcess silent() throws Exception {
    return start("silent", 0);
  }

  private static McpServerProcess start(String mode, int port) throws Exception {
    int chosen = port == 0 ? freePort() : port;
    Process process =
        new ProcessBuilder(command(mode, String.valueOf(chosen)))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    CompletableFuture<Boolean> ready = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                  if (line.contains(McpTestServer.READY)) {
                    ready.complete(true);
                  }
                }
              } catch (IOException e) {
                ready.completeExceptionally(e);
              }
              ready.complete(false);
            });
    reader.setDaemon(true);
    reader.start();
    if (!ready.get(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("the MCP test server did not start");
    }
    return new McpServerProcess(process, chosen);
  }

  public int port() {
    return port;
  }

  public String url() {
    return "http://localhost:" + port + "/mcp";
  }

  /** Kills the server as a crash would. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
