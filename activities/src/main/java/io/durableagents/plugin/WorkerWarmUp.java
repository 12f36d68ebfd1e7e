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
 */
final class WorkerWarmUp {
  private static final Logger log = LoggerFactory.getLogger(WorkerWarmUp.class);

  /** A golden history of the workflow module, copied in by the build (see the pom). */
  static final String HISTORY = "approvals-session-lifecycle.json";

  private WorkerWarmUp() {}

  static void start(Worker worker) {
    Thread thread = new Thread(() -> replay(worker), "agents-warm-up");
    thread.setDaemon(true);
    thread.start();
  }

  private static void replay(Worker worker) {
    long started = System.nanoTime();
    try (InputStream in = WorkerWarmUp.class.getResourceAsStream(HISTORY)) {
      if (in == null) {
        return;
      }
      worker.replayWorkflowExecution(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      log.debug("warm-up replay took {} ms", (System.nanoTime() - started) / 1_000_000);
    } catch (Exception e) {
      log.debug("warm-up replay failed, no harm done: {}", e.toString());
    }
  }
}
