package io.durableagents.app.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free loopback ports for the servers tests start as processes. */
public final class LoopbackPorts {
  private LoopbackPorts() {}

  /**
   * A free port whose PORT + 1000, the default Web UI port of {@code agents server} and {@code
   * agents dev}, is free too.
   */
  public static int freeWithAFreeUiPort() {
    while (true) {
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        int port = socket.getLocalPort();
        if (port + 1000 <= 65535 && isFree(port + 1000)) {
          return port;
        }
      } catch (IOException e) {
        throw new UncheckedIOException("no free loopback port", e);
      }
    }
  }

  private static boolean isFree(int port) {
    try {
      new ServerSocket(port, 1, InetAddress.getLoopbackAddress()).close();
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
