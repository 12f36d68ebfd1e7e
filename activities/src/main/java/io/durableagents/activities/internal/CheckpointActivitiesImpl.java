package io.durableagents.activities.internal;

import io.durableagents.metrics.AgentMetrics;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.workflow.internal.activity.CheckpointActivities;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import java.util.List;

/**
 * Checkpoint saves outside a model turn. A save that names no agent is of a session's first run
 * that failed before its agent was resolved (the session named none, so the worker's default would
 * have run): it is saved under the default agent, as the run would have been.
 */
public final class CheckpointActivitiesImpl implements CheckpointActivities {
  private final MeteredSaves saves;
  private final String defaultAgent;

  public CheckpointActivitiesImpl(
      CheckpointStore store, String defaultAgent, AgentMetrics metrics) {
    this.saves = new MeteredSaves(store, metrics);
    this.defaultAgent = defaultAgent;
  }

  @Override
  public void saveCheckpoint(CheckpointSave save) {
    saves.save(save.withAgentIfNone(defaultAgent));
  }

  @Override
  public void saveCheckpoints(List<CheckpointSave> saves) {
    this.saves.save(saves.stream().map(save -> save.withAgentIfNone(defaultAgent)).toList());
  }
}
