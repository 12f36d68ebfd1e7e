package io.durableagents.testing;

import java.util.Objects;

/**
 * How one recorded workflow run of a session replayed: {@link #replayed()} when the current
 * workflow code issued the same commands as the history records, else {@link #failure()} says why
 * (for a changed command order, the SDK's non-determinism error).
 *
 * @param workflowId the session id, or the file name when the history does not say
 * @param runId the workflow run id, or {@code "-"} when the history does not say
 * @param source where the history came from: a file path, {@code "server"} or {@code "history"}
 * @param failure null when the run replayed, else one line saying why not
 */
public record SessionReplayResult(String workflowId, String runId, String source, String failure) {
  /** Refuses a null workflow id, run id or source; {@code failure} is null for a replayed run. */
  public SessionReplayResult {
    Objects.requireNonNull(workflowId, "workflowId");
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(source, "source");
  }

  /** True when the current workflow code replays this run. */
  public boolean replayed() {
    return failure == null;
  }

  /** {@code OK <workflowId> <runId>} or {@code FAIL <workflowId> <runId>: <failure>}. */
  @Override
  public String toString() {
    return replayed()
        ? "OK   " + workflowId + " " + runId
        : "FAIL " + workflowId + " " + runId + ": " + failure;
  }
}
