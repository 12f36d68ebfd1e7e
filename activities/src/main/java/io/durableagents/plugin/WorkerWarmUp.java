package io.durableagents.plugin;

import io.temporal.worker.Worker;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replays one recorded session on a worker that just started, in the background: the classes and
 * code paths of the session workflow and its payloads are loaded and compiled before the worker's
 * first real workflow task, which after a crash or a deploy is the one a waiting session (a cancel,
 * an approval) waits for.
 *
 * <p>The replay runs on the worker itself, with its deadlock detection timeout (the plugin's 5 s
 * unless the worker sets its own). On a cold JVM with starved cores it can trip it, as any first
 * workflow task can: then the replay stops, which is logged, and nothing else happens. The replay
 * is local (a query of the history on this worker), the server never hears of it, the worker polls
 * as usual, and what was loaded before the stop stays loaded. No failure of the warm-up reaches the
 * worker's start.
 */
final class WorkerWarmUp {
  private static final Logger log = LoggerFactory.getLogger(WorkerWarmUp.class);

  /** A golden history of the workflow module, copied in by the build (see the pom). */
  static final String HISTORY = "approvals-session-lifecycle.json";

  private WorkerWarmUp() {}

  static void start(Worker worker) {
    try {
      Thread thread = new Thread(() -> replay(worker), "agents-warm-up");
      thread.setDaemon(true);
      thread.start();
    } catch (RuntimeException | Error e) {
      log.info("warm-up replay not started, the worker runs without it: {}", e.toString());
    }
  }

  /** Replays the warm-up history on {@code worker}; false, logged, when it could not. */
  static boolean replay(Worker worker) {
    long started = System.nanoTime();
    try (InputStream in = WorkerWarmUp.class.getResourceAsStream(HISTORY)) {
      if (in == null) {
        return false;
      }
      worker.replayWorkflowExecution(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      log.debug("warm-up replay took {} ms", (System.nanoTime() - started) / 1_000_000);
      return true;
    } catch (Exception | Error e) {
      // Whatever stops the replay (a deadlock detected on a starved JVM, a class that cannot
      // load) stays here: the worker's first real workflow task loads what it needs itself.
      log.info(
          "warm-up replay stopped after {} ms, no harm done (the worker polls as usual): {}",
          (System.nanoTime() - started) / 1_000_000,
          e.toString());
      return false;
    }
  }
}
