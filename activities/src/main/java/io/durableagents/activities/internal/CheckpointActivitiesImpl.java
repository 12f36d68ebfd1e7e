package io.durableagents.activities.internal;

import io.durableagents.store.AgentStore;
import io.durableagents.workflow.activity.CheckpointActivities;
import io.durableagents.workflow.activity.CheckpointSave;

public final class CheckpointActivitiesImpl implements CheckpointActivities {
  private final AgentStore store;

  public CheckpointActivitiesImpl(AgentStore store) {
    this.store = store;
  }

  @Override
  public void saveCheckpoint(CheckpointSave save) {
    store.saveCheckpoint(save);
  }
}
