package io.durableagents.workflow.internal;

/**
 * {@code Workflow.getVersion} change ids, one per change of command order after a behaviour
 * shipped. Never remove one while histories that predate it may still be replayed.
 */
final class ChangeIds {
  /**
   * Checkpoint saves as local activities, and the save after a tool batch folded into the next
   * model turn's activity (which writes it before reading the transcript).
   */
  static final String CHEAP_CHECKPOINTS = "cheap-checkpoints";

  /**
   * The entry after a tool-calling model turn is no longer saved by a local activity of its own:
   * the next model turn writes it together with the entry after the batch, in one transaction.
   */
  static final String ONE_SAVE_PER_STEP = "one-save-per-step";

  /**
   * The entry an approval decision lands on is saved by a regular activity started together with
   * the approved call, instead of a local activity that the call's start waited for.
   */
  static final String DECISION_SAVE_ALONGSIDE = "decision-save-alongside";

  /**
   * The agent is resolved by a local activity at the start of each run instead of a regular one:
   * a lookup in the worker's registry that needs no server round trip before the first model
   * turn. Its result is recorded in a marker, so a run still keeps the definition it started with.
   */
  static final String RESOLVE_AGENT_LOCALLY = "resolve-agent-locally";

  /**
   * A local model turn no longer writes the entries folded into it: it continues the worker's
   * remembered transcript with them, and they are written later, restated, by a turn once a few
   * steps are held, or by the next save of any other kind ({@code agents.SaveCheckpoints}, one
   * transaction). Local activities record their results only when the workflow task completes,
   * so nothing outside the task depends on an entry sooner.
   */
  static final String LOCAL_TURNS_HOLD_SAVES = "local-turns-hold-saves";

  /**
   * Model turns of both modes hold their entries, but only briefly: while the oldest unwritten
   * entry is younger than a second of workflow time, and until a turn of the run finds a worker
   * without the transcript; from then on that run's turns write what they carry. A turn that
   * writes the held entries has the worker that holds them write them instead of restating them.
   * Before it, only local turns held, with no age limit, and a miss stopped holding for one turn
   * only.
   */
  static final String TURNS_HOLD_SAVES_BRIEFLY = "turns-hold-saves-briefly";

  /**
   * A run that must continue as new before its first model turn saves its input first (an entry
   * of its own): the snapshot carries the transcript by reference only, so before this change
   * the input was lost.
   */
  static final String SAVE_INPUT_BEFORE_CONTINUING = "save-input-before-continuing";

  private ChangeIds() {}
}
