package io.durableagents.activities.internal;

import io.durableagents.metrics.AgentMetrics;
import io.durableagents.session.ApprovalStatus;
import io.durableagents.session.RunStatus;
import io.durableagents.session.internal.ApprovalRecord;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import java.time.Duration;
import java.util.List;

/**
 * Checkpoint saves written to the store and reported to the worker's {@link AgentMetrics}: the
 * write (latency, failed or not) and, once written, what the entries record: approvals requested
 * and decided, runs settled. Each approval and each run's end is in exactly one save, so a save
 * reports them once, unless it is retried.
 */
final class MeteredSaves {
  private final CheckpointStore store;
  private final AgentMetrics metrics;

  MeteredSaves(CheckpointStore store, AgentMetrics metrics) {
    this.store = store;
    this.metrics = metrics;
  }

  /** Writes {@code save} as {@link CheckpointStore#saveCheckpoint} does, then reports it. */
  void save(CheckpointSave save) {
    write(() -> store.saveCheckpoint(save));
    report(save);
  }

  /** Writes {@code saves} as {@link CheckpointStore#saveCheckpoints} does, then reports them. */
  void save(List<CheckpointSave> saves) {
    write(() -> store.saveCheckpoints(saves));
    saves.forEach(this::report);
  }

  private void write(Runnable write) {
    long started = System.nanoTime();
    try {
      write.run();
    } catch (RuntimeException e) {
      metrics.projectionWrite(Duration.ofNanos(System.nanoTime() - started), true);
      throw e;
    }
    metrics.projectionWrite(Duration.ofNanos(System.nanoTime() - started), false);
  }

  private void report(CheckpointSave save) {
    for (ApprovalRecord record : save.approvals()) {
      String tool = record.approval().toolName();
      if (record.status() == ApprovalStatus.PENDING) {
        metrics.approvalRequested(save.agent(), tool);
      } else {
        Duration waited =
            Duration.ofMillis(Math.max(0, record.decidedAt() - record.approval().requestedAt()));
        metrics.approvalDecided(save.agent(), tool, record.status().value(), waited);
      }
    }
    if (RunStatus.settled(save.status())) {
      metrics.runSettled(save.agent(), save.status().toString(), save.finishReason());
    }
  }
}
