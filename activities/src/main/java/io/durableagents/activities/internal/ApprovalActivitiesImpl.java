package io.durableagents.activities.internal;

import io.durableagents.agent.Agent;
import io.durableagents.store.AgentStore;
import io.durableagents.workflow.internal.activity.ApprovalActivities;
import io.durableagents.workflow.internal.activity.ApprovalNotice;
import io.temporal.failure.ApplicationFailure;

public final class ApprovalActivitiesImpl implements ApprovalActivities {
  private final AgentRegistry registry;
  private final AgentStore store;

  public ApprovalActivitiesImpl(AgentRegistry registry, AgentStore store) {
    this.registry = registry;
    this.store = store;
  }

  @Override
  public long notifyApproval(ApprovalNotice notice) {
    Agent agent = registry.agent(notice.agent());
    if (agent.approvalNotifier() == null) {
      return 0;
    }
    try {
      agent.approvalNotifier().notify(notice.sessionId(), agent.name(), notice.approval());
    } catch (Exception e) {
      throw ApplicationFailure.newFailureWithCause(
          "Approval notifier of '" + agent.name() + "' failed: " + e.getMessage(),
          "notifier_failed",
          e);
    }
    long notifiedAt = System.currentTimeMillis();
    store.markApprovalNotified(notice.sessionId(), notice.approval().approvalId(), notifiedAt);
    return notifiedAt;
  }
}
