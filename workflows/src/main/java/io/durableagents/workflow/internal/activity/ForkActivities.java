package io.durableagents.workflow.internal.activity;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Prepares a forked session on the worker side, where the store is. */
@ActivityInterface(namePrefix = ActivityNames.PREFIX)
public interface ForkActivities {

  /**
   * Copies the source entry's transcript, with the patch applied, into the new session (one store
   * write, nothing through Temporal payloads) and describes where the fork starts. Fails with the
   * non-retryable type {@code checkpoint_not_found}, listing the kept steps, when the entry does
   * not exist, and {@code invalid_patch} when the patch cannot apply. Idempotent.
   */
  @ActivityMethod
  ForkState prepareFork(ForkRequest request);
}
