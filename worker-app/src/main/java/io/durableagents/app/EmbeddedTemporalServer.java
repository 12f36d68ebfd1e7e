package io.durableagents.app;

import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.temporal.internal.testservice.GRPCServerHelper;
import io.temporal.internal.testservice.TestServicesStarter;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The in-memory Temporal test server from {@code temporal-testing}, bound to a loopback port. For
 * development and demos: it keeps nothing across restarts and enforces none of a real server's
 * history or payload limits.
 *
 * <p>{@link #start} serves it without sticky execution ({@link NoStickyExecution}), so that a
 * restarted or killed worker strands no session; {@link #startSticky} keeps stickiness, for the
 * benchmarks that measure a worker with its workflow cache as in production.
 */
public final class EmbeddedTemporalServer implements AutoCloseable {
  private final TestServicesStarter services;
  private final Server server;
  private final int port;
  private final boolean lockEventsDiscarded;

  private EmbeddedTemporalServer(TestServicesStarter services, Server server, int port) {
    this.services = services;
    this.server = server;
    this.port = port;
    this.lockEventsDiscarded = TestServerLockEvents.stopRecording(services);
  }

  /**
   * Starts the server on {@code port} (0 picks a free port), every workflow task on its task queue.
   */
  public static EmbeddedTemporalServer start(int port) {
    return start(port, List.of(new NoStickyExecution()));
  }

  /**
   * Starts the server with sticky execution, as the test server ships: a worker's cached workflows
   * get their tasks on its own queue, and wait for it if it goes away.
   */
  public static EmbeddedTemporalServer startSticky(int port) {
    return start(port, List.of());
  }

  private static EmbeddedTemporalServer start(int port, List<ServerInterceptor> interceptors) {
    int chosen = port == 0 ? FreePorts.find() : port;
    // Time skipping locked: the server's clock is the wall clock, as a real server's.
    TestServicesStarter services = new TestServicesStarter(true, 0);
    try {
      NettyServerBuilder builder =
          NettyServerBuilder.forAddress(
              new InetSocketAddress(InetAddress.getLoopbackAddress(), chosen),
              InsecureServerCredentials.create());
      GRPCServerHelper.registerServicesAndHealthChecks(
          services.getServices(), builder, interceptors);
      return new EmbeddedTemporalServer(services, builder.build().start(), chosen);
    } catch (IOException | RuntimeException e) {
      services.close();
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
    server.shutdown();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    services.close();
    server.shutdownNow();
  }
}
