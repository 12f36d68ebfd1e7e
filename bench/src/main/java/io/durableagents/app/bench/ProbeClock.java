package io.durableagents.app.bench;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When a probed handler started ({@link System#nanoTime()}), by key: the approved bench tool marks
 * its session id, the baseline probe activity its workflow id. Only keys someone {@link #expect}s
 * are kept, so the paused sessions of the memory figure leave nothing behind.
 */
final class ProbeClock {
  private final Map<String, CompletableFuture<Long>> starts = new ConcurrentHashMap<>();

  /** The start time of {@code key}'s handler, completed when it runs. Call before it can run. */
  CompletableFuture<Long> expect(String key) {
    return starts.computeIfAbsent(key, k -> new CompletableFuture<>());
  }

  /** Records that {@code key}'s handler starts now; the first mark wins (a retry keeps it). */
  void mark(String key) {
    long now = System.nanoTime();
    CompletableFuture<Long> future = starts.get(key);
    if (future != null) {
      future.complete(now);
    }
  }

  void forget(String key) {
    starts.remove(key);
  }
}
