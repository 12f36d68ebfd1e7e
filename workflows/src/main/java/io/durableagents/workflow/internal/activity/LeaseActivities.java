package io.durableagents.workflow.internal.activity;

import io.durableagents.workflow.internal.wire.LeaseRequest;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * The calls between a session and the lease of a concurrency key that workflow code cannot make
 * itself: an update of another workflow, and a look at another workflow's state.
 */
@ActivityInterface(namePrefix = ActivityNames.PREFIX)
public interface LeaseActivities {

  /**
   * Queues {@code request}'s run for the lease of its key (update-with-start of the key workflow's
   * {@code acquire}, which starts it when no run of it is open) and answers the run's place.
   */
  @ActivityMethod
  int acquireLease(LeaseRequest request);

  /** True while the session workflow {@code sessionId} is open (running). */
  @ActivityMethod
  boolean sessionOpen(String sessionId);
}
