package io.durableagents.activities.internal;

import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.workflow.internal.activity.CheckpointActivities;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import java.util.List;

public final class CheckpointActivitiesImpl implements CheckpointActivities {
  private final CheckpointStore store;

  public CheckpointActivitiesImpl(CheckpointStore store) {
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
