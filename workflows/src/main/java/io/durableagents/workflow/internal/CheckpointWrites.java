package io.durableagents.workflow.internal;

import io.durableagents.conversation.Message;
import io.durableagents.workflow.internal.activity.AgentSpec;
import io.durableagents.workflow.internal.activity.TurnSaves;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * How a session's checkpoint entries reach the store, in order: written at once, deferred to the
 * next model turn's activity (which writes them before it reads the transcript), held by turns
 * while steps are fast (written later in one transaction: by the worker that held them, or restated
 * by a save of another kind or after a miss), or written by an activity started alongside an
 * approved call. Part of the workflow's state: deterministic, and every write runs in a detached
 * scope, so a cancel never interrupts the write of a step that completed. {@code
 * docs/architecture.md} draws this path.
 */
final class CheckpointWrites {
  /** At most this many entries wait in {@link #held}: four steps of two entries. */
  static final int MAX_HELD_SAVES = 8;

  /** At most this many characters of messages wait in {@link #held}. */
  static final long MAX_HELD_CHARS = 64 * 1024;

  /**
   * An entry older than this (workflow time) is not held any longer: where steps are slow, a write
   * per step costs little and the projection stays current; where they are fast, writes are shared.
   */
  static final Duration MAX_HELD_AGE = Duration.ofSeconds(1);

  private final ActivityStubs stubs;

  /** Checkpoints the next model turn writes, in order (see {@link #deferToNextTurn}). */
  private final List<CheckpointSave> deferred = new ArrayList<>();

  /**
   * Checkpoints that model turns carried without writing them (see {@link #holdsNextTurn}), in
   * order, before {@link #deferred}: the next write of the store writes them first.
   */
  private final List<CheckpointSave> held = new ArrayList<>();

  /** Characters of the messages in {@link #held} (see {@link MessageSize}). */
  private long heldChars;

  /** Set when a worker could not continue the held saves: the next turn writes them. */
  private boolean writeHeld;

  /**
   * True while no save outside a model turn has written the store since the last turn: only then
   * can the next turn continue the transcript that turn's worker remembers.
   */
  private boolean lastWriteByTurn;

  /** A save running as an activity alongside an approved call; every later write waits for it. */
  private Promise<Void> alongside;

  CheckpointWrites(ActivityStubs stubs) {
    this.stubs = stubs;
  }

  /**
   * Writes the entry {@code entry} makes (after any that wait: one transaction with those the turns
   * held). The entry is made once the writes before it are done.
   */
  void write(Supplier<CheckpointSave> entry) {
    if (held.isEmpty()) {
      flush();
      persist(entry.get());
    } else {
      // What the turns held, what waits for the next turn, and this entry: one write.
      awaitAlongside();
      List<CheckpointSave> saves = takeUnwritten();
      saves.add(entry.get());
      persistAll(saves);
    }
  }

  /**
   * Leaves the entry to the next model turn's activity, which writes it in one transaction with the
   * others before it reads the transcript: nothing depends on it before then. Any other write
   * flushes it first.
   */
  void deferToNextTurn(Supplier<CheckpointSave> entry) {
    deferred.add(entry.get());
  }

  /** Writes the deferred and held entries, after a save running alongside a call. */
  void flush() {
    awaitAlongside();
    if (!held.isEmpty()) {
      persistAll(takeUnwritten());
      return;
    }
    while (!deferred.isEmpty()) {
      persist(deferred.remove(0));
    }
  }

  /**
   * Starts the entry's save as a regular activity without waiting for it: its command goes out with
   * the next call's, in the same workflow task. Every later write first waits for it.
   */
  void startAlongside(Supplier<CheckpointSave> entry) {
    flush();
    lastWriteByTurn = false;
    CheckpointSave save = entry.get();
    List<Promise<Void>> started = new ArrayList<>(1);
    Workflow.newDetachedCancellationScope(
            () -> started.add(Async.procedure(stubs.checkpoints()::saveCheckpoint, save)))
        .run();
    alongside = started.get(0);
  }

  /** Waits for the save started alongside a call, if one is running. */
  void awaitAlongside() {
    if (alongside != null) {
      Promise<Void> pending = alongside;
      alongside = null;
      pending.get();
    }
  }

  /**
   * What the next model turn of agent {@code spec} carries, its entries {@link
   * CheckpointSave#compact() compact}; {@code missedInRun}: a turn of this run found a worker
   * without the transcript.
   */
  TurnSaves nextTurn(AgentSpec spec, boolean missedInRun) {
    if (holdsNextTurn(missedInRun)) {
      return new TurnSaves.Hold(compact(deferred, spec));
    }
    if (!held.isEmpty() && !writeHeld) {
      // The held entries are in the history already, and in the memory of the worker that ran
      // the turns that held them: that worker writes them without the workflow restating them.
      return new TurnSaves.WriteHeld(
          held.stream().map(CheckpointSave::step).toList(), compact(deferred, spec));
    }
    List<CheckpointSave> carried = new ArrayList<>(held);
    carried.addAll(deferred);
    return new TurnSaves.Write(compact(carried, spec));
  }

  /** The turn that carried {@code turn} completed: what it held waits, what it wrote is done. */
  void turnCompleted(TurnSaves turn) {
    if (turn.holds()) {
      heldChars += chars(deferred);
      held.addAll(deferred);
    } else {
      held.clear();
      heldChars = 0;
    }
    deferred.clear();
    writeHeld = false;
    lastWriteByTurn = true;
  }

  /**
   * The turn found a worker without the transcript its held saves continue: the next one writes.
   */
  void turnMissedTranscript() {
    writeHeld = true;
  }

  /**
   * Whether the next model turn leaves the deferred entries unwritten: only while the oldest
   * unwritten entry is younger than {@link #MAX_HELD_AGE}, while the store was last written by a
   * model turn (another save leaves a gap in the remembered transcript), not after a turn of the
   * run ({@code missedInRun}) found a worker without it (where turns land on several workers,
   * holding would miss again), and while what is held stays within {@link #MAX_HELD_SAVES} entries
   * and {@link #MAX_HELD_CHARS} characters, so that the transaction that writes them stays small.
   */
  private boolean holdsNextTurn(boolean missedInRun) {
    if (deferred.isEmpty()
        || writeHeld
        || missedInRun
        || !lastWriteByTurn
        || oldestUnwritten() < Workflow.currentTimeMillis() - MAX_HELD_AGE.toMillis()) {
      return false;
    }
    return held.size() + deferred.size() <= MAX_HELD_SAVES
        && heldChars + chars(deferred) <= MAX_HELD_CHARS;
  }

  /**
   * {@code saves}, each {@link CheckpointSave#compact() compact} when it shares the session,
   * execution, agent and fingerprint of the turn's request (which carries them once).
   */
  private static List<CheckpointSave> compact(List<CheckpointSave> saves, AgentSpec spec) {
    String sessionId = Workflow.getInfo().getWorkflowId();
    String executionId = Workflow.getInfo().getFirstExecutionRunId();
    List<CheckpointSave> compact = new ArrayList<>(saves.size());
    for (CheckpointSave save : saves) {
      boolean shared =
          Objects.equals(save.sessionId(), sessionId)
              && Objects.equals(save.executionId(), executionId)
              && Objects.equals(save.agent(), spec.name())
              && Objects.equals(save.fingerprint(), spec.fingerprint());
      compact.add(shared ? save.compact() : save);
    }
    return compact;
  }

  /** When the oldest entry not yet written was made (workflow time). */
  private long oldestUnwritten() {
    return (held.isEmpty() ? deferred : held).get(0).savedAt();
  }

  private static long chars(List<CheckpointSave> saves) {
    long chars = 0;
    for (CheckpointSave save : saves) {
      for (Message message : save.newMessages()) {
        chars += MessageSize.chars(message);
      }
      chars += MessageSize.chars(save.businessState());
    }
    return chars;
  }

  /** The held saves, then the deferred ones, in order; both lists are empty afterwards. */
  private List<CheckpointSave> takeUnwritten() {
    List<CheckpointSave> saves = new ArrayList<>(held);
    saves.addAll(deferred);
    held.clear();
    heldChars = 0;
    deferred.clear();
    return saves;
  }

  /** Writes {@code saves} in one transaction, by a local activity (only held saves come here). */
  private void persistAll(List<CheckpointSave> saves) {
    lastWriteByTurn = false;
    Workflow.newDetachedCancellationScope(() -> stubs.localCheckpoints().saveCheckpoints(saves))
        .run();
  }

  private void persist(CheckpointSave save) {
    lastWriteByTurn = false;
    Workflow.newDetachedCancellationScope(() -> stubs.localCheckpoints().saveCheckpoint(save))
        .run();
  }
}
