package io.durableagents.workflow.internal.activity;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Prepares a forked session on the worker side, where the store is. */
@ActivityInterface(namePrefix = ActivityNames.PREFIX)
public interface ForkActivities {

  /** Failure type when the source session has no kept entry at that step. */
  String CHECKPOINT_NOT_FOUND = "CHECKPOINT_NOT_FOUND";

  /**
   * Failure type of a patch that cannot apply: over a limit, or naming a tool call the entry's
   * transcript does not have. A fork fails with it before it writes anything.
   */
  String INVALID_PATCH = "INVALID_PATCH";

  /**
   * Copies the source entry's transcript, with the patch applied, into the new session (one
   * store write, nothing through Temporal payloads) and describes where the fork starts. Fails
   * with the non-retryable type {@value #CHECKPOINT_NOT_FOUND}, listing the kept steps, when the
   * entry does not exist, and {@value #INVALID_PATCH} when the patch cannot apply. Idempotent.
   */
  @ActivityMethod
  ForkState prepareFork(ForkRequest request);
}
