package io.durableagents.app;

import io.temporal.testserver.TestServer;

/**
 * The in-memory Temporal test server from {@code temporal-testing}, bound to a loopback port. For
 * development and demos: it keeps nothing across restarts and enforces none of a real server's
 * history or payload limits.
 */
public final class EmbeddedTemporalServer implements AutoCloseable {
  private final TestServer.PortBoundTestServer server;
  private final int port;
  private final boolean lockEventsDiscarded;

  private EmbeddedTemporalServer(TestServer.PortBoundTestServer server, int port) {
    this.server = server;
    this.port = port;
    this.lockEventsDiscarded = TestServerLockEvents.stopRecording(server);
  }

  /** Starts the server on {@code port} (0 picks a free port). */
  public static EmbeddedTemporalServer start(int port) {
    int chosen = port == 0 ? FreePorts.find() : port;
    try {
      return new EmbeddedTemporalServer(TestServer.createPortBoundServer(chosen), chosen);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "Cannot start the embedded Temporal server on 127.0.0.1:"
              + chosen
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Whether the server's unbounded lock event log was replaced (see {@link TestServerLockEvents}).
   */
  boolean lockEventsDiscarded() {
    return lockEventsDiscarded;
  }

  /** The loopback port it listens on, the one chosen when 0 was asked for. */
  public int port() {
    return port;
  }

  /** The address clients and workers connect to. */
  public String address() {
    return "127.0.0.1:" + port;
  }

  @Override
  public void close() {
    server.close();
  }
}
