package io.durableagents.app.cli;

import io.durableagents.cli.CliException;
import io.durableagents.cli.ExitCodes;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

final class Ports {
  /** What may hold a taken {@code --http-port}. */
  static final String EVENTS_GUESS = " (another worker's events endpoint?)";

  private Ports() {}

  static void requireValid(CommandSpec spec, int port) {
    if (port < 1 || port > 65535) {
      throw new ParameterException(
          spec.commandLine(), "--port must be between 1 and 65535, got " + port);
    }
  }

  /**
   * Fails with a one-line error (exit 1) when a loopback {@code port} is taken: a server started on
   * it would fail, or worse, a readiness check would reach whatever already listens there.
   */
  static void requireFree(int port, String option) {
    requireFree(port, option, " (another Temporal server?)");
  }

  /**
   * {@link #requireFree(int, String)} for a port of something else than Temporal, {@code guess}
   * saying what may hold it (or empty).
   */
  static void requireFree(int port, String option, String guess) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
    } catch (IOException e) {
      throw new CliException(
          ExitCodes.ERROR,
          "127.0.0.1:"
              + port
              + " is already in use"
              + guess
              + ": stop it or choose another "
              + option
              + ".");
    }
  }
}
