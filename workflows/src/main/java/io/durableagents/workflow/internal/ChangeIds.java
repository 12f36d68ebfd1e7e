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

  private ChangeIds() {}
}
