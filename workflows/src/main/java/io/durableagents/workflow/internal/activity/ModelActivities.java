package io.durableagents.workflow.internal.activity;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** The model turn. Its result is the checkpointed turn and is never generated again. */
@ActivityInterface(namePrefix = ActivityNames.PREFIX)
public interface ModelActivities {

  @ActivityMethod
  ModelTurnResult modelTurn(ModelTurnRequest request);
}
