package io.durableagents.workflow.activity;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Writes checkpoints and the transcript into the store. Idempotent: safe to retry. */
@ActivityInterface(namePrefix = ActivityNames.PREFIX)
public interface CheckpointActivities {

  @ActivityMethod
  void saveCheckpoint(CheckpointSave save);
}
