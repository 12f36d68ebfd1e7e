package io.durableagents.workflow.internal;

import io.durableagents.workflow.Message;
import io.durableagents.workflow.activity.AgentSpec;
import io.durableagents.workflow.activity.CheckpointSave;
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
 * while steps are fast (written later in one transaction: by the worker that held them, or
 * restated by a save of another kind or after a miss), or written by an activity
 * started alongside an approved call. Part of the workflow's state: deterministic, and every
 * write runs in a detached scope, so a cancel never interrupts the write of a step that completed.
 * Which of these a history uses is decided by {@link ChangeIds}, asked where each change was made.
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

  /**
   * The saves one model turn carries: the new ones to hold, or all of them to write; or, with
   * {@code heldSteps}, the new ones to write after the held ones its worker remembers.
   */
  record TurnSaves(List<CheckpointSave> carried, boolean hold, long chars, List<Integer> heldSteps) {
    /** The single carried save, for a request's {@code checkpoint} field. */
    CheckpointSave single() {
      return heldSteps == null && carried.size() == 1 ? carried.get(0) : null;
    }

    /** Two or more carried saves, for a request's {@code checkpoints} field. */
    List<CheckpointSave> several() {
      return heldSteps == null && carried.size() > 1 ? carried : null;
    }

    /** The carried saves of a turn that writes the held ones, for a request's {@code afterHeld}. */
    List<CheckpointSave> afterHeld() {
      return heldSteps == null ? null : carried;
    }

    /** A request's {@code holdSaves}: also set on a turn that writes the held saves (see there). */
    boolean holdSaves() {
      return hold || heldSteps != null;
    }

    /**
     * These saves, each {@link CheckpointSave#compact() compact} when it shares the request's
     * session, execution, agent and fingerprint (which the request then carries once).
     */
    TurnSaves compactFor(String sessionId, String executionId, String agent, String fingerprint) {
      List<CheckpointSave> compact = new ArrayList<>(carried.size());
      for (CheckpointSave save : carried) {
        boolean shared =
            Objects.equals(save.sessionId(), sessionId)
                && Objects.equals(save.executionId(), executionId)
                && Objects.equals(save.agent(), agent)
                && Objects.equals(save.fingerprint(), fingerprint);
        compact.add(shared ? save.compact() : save);
      }
      return new TurnSaves(compact, hold, chars, heldSteps);
    }
  }

  private final ActivityStubs stubs;
  /** Checkpoints the next model turn writes, in order (see {@link #deferToNextTurn}). */
  private final List<CheckpointSave> deferred = new ArrayList<>();
  /**
   * Checkpoints that model turns carried without writing them (see {@link #charsToHold}), in
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
  private Integer checkpointVersion;
  private Integer stepSaveVersion;
  private Integer decisionSaveVersion;
  private Integer localHoldVersion;
  private Integer holdBrieflyVersion;

  CheckpointWrites(ActivityStubs stubs) {
    this.stubs = stubs;
  }

  /**
   * Writes the entry {@code entry} makes (after any that wait: one transaction with those the
   * turns held). The entry is made once the writes before it are done.
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
   * Leaves the entry to the next model turn's activity, which writes it in one transaction with
   * the others before it reads the transcript: nothing depends on it before then. Any other write
   * flushes it first. Writes it at once in histories that predate the change.
   */
  void deferToNextTurn(Supplier<CheckpointSave> entry) {
    if (!cheapCheckpoints()) {
      write(entry);
      return;
    }
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
   * Starts the entry's save as a regular activity without waiting for it: its command goes out
   * with the next call's, in the same workflow task. Every later write first waits for it.
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
   * What the next model turn of agent {@code spec} carries; {@code missedInRun}: a turn of this
   * run found a worker without the transcript.
   */
  TurnSaves nextTurn(AgentSpec spec, boolean missedInRun) {
    long chars = charsToHold(spec, missedInRun);
    if (chars >= 0) {
      return new TurnSaves(List.copyOf(deferred), true, chars, null);
    }
    if (!held.isEmpty() && !writeHeld && holdBrieflyVersion != null && holdBrieflyVersion >= 1) {
      // The held entries are in the history already, and in the memory of the worker that ran
      // the turns that held them: that worker writes them without the workflow restating them.
      return new TurnSaves(List.copyOf(deferred), false, -1, held.stream().map(CheckpointSave::step).toList());
    }
    List<CheckpointSave> carried = new ArrayList<>(held);
    carried.addAll(deferred);
    return new TurnSaves(carried, false, -1, null);
  }

  /** The turn that carried {@code turn} completed: what it held waits, what it wrote is done. */
  void turnCompleted(TurnSaves turn) {
    if (turn.hold()) {
      heldChars += turn.chars();
      held.addAll(deferred);
    } else {
      held.clear();
      heldChars = 0;
    }
    deferred.clear();
    writeHeld = false;
    lastWriteByTurn = true;
  }

  /** The turn found a worker without the transcript its held saves continue: the next one writes. */
  void turnMissedTranscript() {
    writeHeld = true;
  }

  /**
   * Whether the save after a tool-calling model turn also waits for the next model turn (see
   * {@link ChangeIds#ONE_SAVE_PER_STEP}).
   */
  boolean oneSavePerStep() {
    if (!cheapCheckpoints()) {
      return false;
    }
    if (stepSaveVersion == null) {
      stepSaveVersion = Workflow.getVersion(ChangeIds.ONE_SAVE_PER_STEP, Workflow.DEFAULT_VERSION, 1);
    }
    return stepSaveVersion >= 1;
  }

  /** Whether an approved call starts together with its decision's save (see {@link ChangeIds}). */
  boolean decisionSavesAlongside() {
    if (decisionSaveVersion == null) {
      decisionSaveVersion =
          Workflow.getVersion(ChangeIds.DECISION_SAVE_ALONGSIDE, Workflow.DEFAULT_VERSION, 1);
    }
    return decisionSaveVersion >= 1;
  }

  /**
   * The characters of the deferred entries when the next model turn leaves them unwritten, else
   * -1. A turn holds only while what is held stays within {@link #MAX_HELD_SAVES} entries and
   * {@link #MAX_HELD_CHARS} characters, so that the transaction that writes them stays small; since
   * {@link ChangeIds#TURNS_HOLD_SAVES_BRIEFLY}, also only while the oldest unwritten entry is
   * younger than {@link #MAX_HELD_AGE}, while the store was last written by a model turn (another
   * save leaves a gap in the remembered transcript), and not after a turn of the run
   * ({@code missedInRun}) found a worker without it: where turns land on several workers, holding
   * would miss again.
   */
  private long charsToHold(AgentSpec spec, boolean missedInRun) {
    if (deferred.isEmpty() || writeHeld) {
      return -1;
    }
    if (spec.localModel()) {
      // Asked exactly where it was before the brief holding, so older histories replay.
      if (localHoldVersion == null) {
        localHoldVersion = Workflow.getVersion(ChangeIds.LOCAL_TURNS_HOLD_SAVES, Workflow.DEFAULT_VERSION, 1);
      }
      if (localHoldVersion < 1) {
        return -1;
      }
    }
    if (holdBrieflyVersion == null) {
      holdBrieflyVersion =
          Workflow.getVersion(ChangeIds.TURNS_HOLD_SAVES_BRIEFLY, Workflow.DEFAULT_VERSION, 1);
    }
    if (holdBrieflyVersion < 1) {
      if (!spec.localModel()) {
        return -1;
      }
    } else if (missedInRun
        || !lastWriteByTurn
        || oldestUnwritten() < Workflow.currentTimeMillis() - MAX_HELD_AGE.toMillis()) {
      return -1;
    }
    if (held.size() + deferred.size() > MAX_HELD_SAVES) {
      return -1;
    }
    long chars = chars(deferred);
    return heldChars + chars <= MAX_HELD_CHARS ? chars : -1;
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
    Workflow.newDetachedCancellationScope(() -> stubs.localCheckpoints().saveCheckpoints(saves)).run();
  }

  private void persist(CheckpointSave save) {
    lastWriteByTurn = false;
    Workflow.newDetachedCancellationScope(
            () -> {
              if (cheapCheckpoints()) {
                stubs.localCheckpoints().saveCheckpoint(save);
              } else {
                stubs.checkpoints().saveCheckpoint(save);
              }
            })
        .run();
  }

  /** Whether this history saves checkpoints the cheap way (see {@link ChangeIds}). */
  private boolean cheapCheckpoints() {
    if (checkpointVersion == null) {
      checkpointVersion = Workflow.getVersion(ChangeIds.CHEAP_CHECKPOINTS, Workflow.DEFAULT_VERSION, 1);
    }
    return checkpointVersion >= 1;
  }
}
