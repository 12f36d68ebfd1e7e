package io.durableagents.workflow.internal.activity;

import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/** Writes checkpoints and the transcript into the store. Idempotent: safe to retry. */
@ActivityInterface(namePrefix = ActivityNames.PREFIX)
public interface CheckpointActivities {

  @ActivityMethod
  void saveCheckpoint(CheckpointSave save);

  /** Writes several saves of one session, in order, in one transaction. */
  @ActivityMethod
  void saveCheckpoints(List<CheckpointSave> saves);
}
