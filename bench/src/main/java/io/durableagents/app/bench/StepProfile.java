package io.durableagents.app.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where the time of one kind of session's steps went, one session at a time: wall time per step,
 * and per role (model turn, tool call, checkpoint save, ...) the calls per step, the ms per step
 * spent in the handlers and the ms per step the workflow waited for their results; plus the step's
 * anatomy in history and its workflow tasks.
 *
 * @param wallMsPerStep the sessions' wall time (client start to result) over their steps
 * @param roles by role, in a fixed order: calls, handler ms and waited ms, each per step
 * @param anatomy one session's events between its first and last model turn, per step
 * @param workflowTasksPerSession workflow tasks of a whole session (start to result)
 * @param workflowTaskMsPerStep ms workflow tasks ran (started to completed, per history) per step
 * @param workflowTaskWaitMsPerStep ms workflow tasks waited for a worker (scheduled to started, per
 *     history) per step: the server's dispatch
 * @param activityWaitMsPerStep ms activities waited for a worker (scheduled to started) per step
 */
record StepProfile(
    int sessions,
    int steps,
    double wallMsPerStep,
    Map<String, Role> roles,
    StepAnatomy anatomy,
    double workflowTasksPerSession,
    double workflowTaskMsPerStep,
    double workflowTaskWaitMsPerStep,
    double activityWaitMsPerStep) {

  /** One role's calls, handler ms and waited ms, each per step. */
  record Role(double calls, double handlerMs, double waitedMs) {}

  static final String MODEL_TURN = "model turn";
  static final String TOOL_CALL = "tool call";
  static final String CHECKPOINT_SAVE = "checkpoint save";
  static final String RESOLVE_AGENT = "resolve agent";

  /** Not a call: the workflow's own time between a result and its next call. */
  static final String WORKFLOW_CODE = StepProfiler.WORKFLOW_CODE;

  /** What the profiler saw, by activity type, as roles per step. */
  static Map<String, Role> roles(Map<String, StepProfiler.Totals> byType, int steps) {
    Map<String, double[]> sums = new LinkedHashMap<>();
    for (String role :
        new String[] {MODEL_TURN, TOOL_CALL, CHECKPOINT_SAVE, RESOLVE_AGENT, WORKFLOW_CODE}) {
      sums.put(role, new double[3]);
    }
    byType.forEach(
        (type, totals) -> {
          double[] sum = sums.computeIfAbsent(role(type), k -> new double[3]);
          sum[0] += totals.calls;
          sum[1] += totals.handlerNanos / 1e6;
          sum[2] += totals.waitedNanos / 1e6;
        });
    Map<String, Role> roles = new LinkedHashMap<>();
    sums.forEach(
        (role, sum) -> roles.put(role, new Role(sum[0] / steps, sum[1] / steps, sum[2] / steps)));
    return roles;
  }

  /** The role of an activity type, the plugin's and the baseline's alike. */
  static String role(String activityType) {
    String name = activityType.substring(activityType.lastIndexOf('.') + 1);
    return switch (name) {
      case "ModelTurn" -> MODEL_TURN;
      case "ExecuteTool", "CallTool" -> TOOL_CALL;
      case "SaveCheckpoint", "SaveCheckpoints" -> CHECKPOINT_SAVE;
      case "ResolveAgent" -> RESOLVE_AGENT;
      case WORKFLOW_CODE -> WORKFLOW_CODE;
      default -> activityType;
    };
  }

  /**
   * Wall time per step that neither the calls nor the workflow's code between them cover: the
   * session's start, the update's way in and out, the client.
   */
  double restMsPerStep() {
    double waited = 0;
    for (Role role : roles.values()) {
      waited += role.waitedMs();
    }
    return wallMsPerStep - waited;
  }
}
