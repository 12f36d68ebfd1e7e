package io.durableagents.app.bench;

import java.util.Map;

/**
 * One kind of session's step taken apart ({@code agents bench --anatomy}), in ms per step, from its
 * sessions' histories and, for the plugin, from its worker's timers. The history's parts add up to
 * the wall time but for {@link #otherMs()}: the client's start and result, and the gaps between a
 * task's completion and the next task's scheduling.
 *
 * @param mode the step mode (activities, or local activities)
 * @param plugin the plugin's session, or the hand-written loop in its own worker process
 * @param sessions sessions measured, one at a time
 * @param steps tool-calling steps per session
 * @param wallMs client start to result, per step
 * @param times the sessions' dispatch times from history, summed
 * @param cost the sessions' history events, bytes and estimated Temporal Cloud actions, summed
 * @param roles the plugin's worker-side timers by role, per step (empty for the baseline, whose
 *     worker is another process)
 */
record AnatomyRow(
    Bench.StepMode mode,
    boolean plugin,
    int sessions,
    int steps,
    double wallMs,
    DispatchTimes times,
    HistoryCost cost,
    Map<String, StepProfile.Role> roles) {

  private double perStep(double summed) {
    return summed / ((double) sessions * steps);
  }

  /** A whole session's actions (its start and answer included) over its steps. */
  double actionsPerStep() {
    return perStep((double) cost.totalActions());
  }

  double actionsPerSession() {
    return cost.totalActions() / (double) sessions;
  }

  /** A session's actions of {@code kind}, or 0. */
  double actionsPerSession(String kind) {
    return cost.actions().getOrDefault(kind, 0L) / (double) sessions;
  }

  double historyEventsPerStep() {
    return perStep((double) cost.events());
  }

  double historyBytesPerStep() {
    return perStep((double) cost.bytes());
  }

  double workflowTasksPerStep() {
    return perStep(times.workflowTasks());
  }

  /** Workflow tasks' wait for a worker: the server's dispatch. */
  double workflowTaskWaitMs() {
    return perStep(times.workflowTaskWaitMs());
  }

  /** Workflow tasks' started to completed: the worker's processing and both trips. */
  double workflowTaskRunMs() {
    return perStep(times.workflowTaskRunMs());
  }

  double activityWaitMs() {
    return perStep(times.activityWaitMs());
  }

  double activityRunMs() {
    return perStep(times.activityRunMs());
  }

  double otherMs() {
    return wallMs - workflowTaskWaitMs() - workflowTaskRunMs() - activityWaitMs() - activityRunMs();
  }

  /** A worker-side role's handler ms per step, or NaN when not timed. */
  double handlerMs(String role) {
    StepProfile.Role timed = roles.get(role);
    return timed == null ? Double.NaN : timed.handlerMs();
  }

  /** The workflow's own code between calls, per step, or NaN when not timed. */
  double workflowCodeMs() {
    StepProfile.Role timed = roles.get(StepProfile.WORKFLOW_CODE);
    return timed == null ? Double.NaN : timed.waitedMs();
  }
}
