package io.durableagents.activities.internal;

import io.durableagents.store.AgentStore;
import io.durableagents.workflow.CheckpointSave;
import io.durableagents.workflow.internal.activity.CheckpointActivities;
import java.util.List;

public final class CheckpointActivitiesImpl implements CheckpointActivities {
  private final AgentStore store;

  public CheckpointActivitiesImpl(AgentStore store) {
    this.store = store;
  }

  @Override
  public void saveCheckpoint(CheckpointSave save) {
    store.saveCheckpoint(save);
  }

  @Override
  public void saveCheckpoints(List<CheckpointSave> saves) {
    store.saveCheckpoints(saves);
  }
}
