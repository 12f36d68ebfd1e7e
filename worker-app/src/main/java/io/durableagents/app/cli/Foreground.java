package io.durableagents.app.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Keeps a long-running command ({@code server}, {@code dev}, {@code worker}) in the foreground
 * until Ctrl-C or SIGTERM, then closes what it started, last started first.
 */
final class Foreground {
  private final List<AutoCloseable> resources = Collections.synchronizedList(new ArrayList<>());
  private final PrintWriter err;

  private Foreground(PrintWriter err) {
    this.err = err;
  }

  /** Registers the shutdown hook; call before starting anything. */
  static Foreground install(PrintWriter err) {
    Foreground foreground = new Foreground(err);
    Runtime.getRuntime().addShutdownHook(new Thread(foreground::closeAll, "agents-shutdown"));
    return foreground;
  }

  /** Closes {@code resource} at shutdown, before anything registered earlier. */
  <T extends AutoCloseable> T own(T resource) {
    resources.add(resource);
    return resource;
  }

  /** Blocks until the JVM shuts down; the shutdown hook closes the resources. */
  void awaitShutdown() {
    try {
      new CountDownLatch(1).await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void closeAll() {
    List<AutoCloseable> toClose;
    synchronized (resources) {
      toClose = new ArrayList<>(resources);
      resources.clear();
    }
    if (toClose.isEmpty()) {
      stopChildProcesses();
      return;
    }
    err.println("Shutting down...");
    err.flush();
    Collections.reverse(toClose);
    for (AutoCloseable resource : toClose) {
      try {
        resource.close();
      } catch (Exception e) {
        err.println("While shutting down: " + e.getMessage());
      }
    }
    stopChildProcesses();
    err.flush();
  }

  /** A server still starting is not owned yet; its process must not outlive this one. */
  private static void stopChildProcesses() {
    ProcessHandle.current().children().forEach(ProcessHandle::destroy);
  }
}
