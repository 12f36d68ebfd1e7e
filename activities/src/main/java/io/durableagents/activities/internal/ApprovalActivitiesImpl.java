package io.durableagents.activities.internal;

import io.durableagents.agent.Agent;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.workflow.internal.activity.ApprovalActivities;
import io.durableagents.workflow.internal.activity.ApprovalNotice;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.failure.ApplicationFailure;

/**
 * Calls the agent's approval notifier, then records when it accepted in the store. The attempt that
 * notified heartbeats that time first: when the store is down and the attempt fails, the next
 * attempts only record it, and the notifier is not called again for it.
 */
public final class ApprovalActivitiesImpl implements ApprovalActivities {
  private final AgentRegistry registry;
  private final CheckpointStore store;

  public ApprovalActivitiesImpl(AgentRegistry registry, CheckpointStore store) {
    this.registry = registry;
    this.store = store;
  }

  @Override
  public long notifyApproval(ApprovalNotice notice) {
    Agent agent = registry.agent(notice.agent());
    if (agent.approvalNotifier() == null) {
      return 0;
    }
    ActivityExecutionContext context = Activity.getExecutionContext();
    Long notifiedAt = context.getHeartbeatDetails(Long.class).orElse(null);
    if (notifiedAt == null) {
      try {
        agent.approvalNotifier().notify(notice.sessionId(), agent.name(), notice.approval());
      } catch (Exception e) {
        throw ApplicationFailure.newFailureWithCause(
            "Approval notifier of '" + agent.name() + "' failed: " + e.getMessage(),
            "notifier_failed",
            e);
      }
      notifiedAt = System.currentTimeMillis();
      context.heartbeat(notifiedAt);
    }
    store.markApprovalNotified(notice.sessionId(), notice.approval().approvalId(), notifiedAt);
    return notifiedAt;
  }
}
