package io.durableagents.workflow.internal.activity;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Tells people that a decision is waiting, through the agent's notifier. */
@ActivityInterface(namePrefix = ActivityNames.PREFIX)
public interface ApprovalActivities {

  /**
   * Hands the approval to the agent's notifier; retried until the notifier accepts. Records {@code
   * notifiedAt} in the projection and returns it (epoch milliseconds).
   */
  @ActivityMethod
  long notifyApproval(ApprovalNotice notice);
}
