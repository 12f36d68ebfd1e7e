package io.durableagents.activities.internal;

import io.durableagents.workflow.internal.activity.LeaseActivities;
import io.durableagents.workflow.internal.wire.ConcurrencyKeyWorkflow;
import io.durableagents.workflow.internal.wire.KeyLeases;
import io.durableagents.workflow.internal.wire.LeaseRequest;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowUpdateStage;

/**
 * The session's calls to the lease of a concurrency key, made with the worker's own client: the key
 * workflow runs on the task queue of the session that first asks for it.
 */
public final class LeaseActivitiesImpl implements LeaseActivities {

  @Override
  public int acquireLease(LeaseRequest request) {
    ActivityExecutionContext context = Activity.getExecutionContext();
    WorkflowClient client = context.getWorkflowClient();
    ConcurrencyKeyWorkflow lease =
        client.newWorkflowStub(
            ConcurrencyKeyWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(ConcurrencyKeyWorkflow.workflowId(request.key()))
                .setTaskQueue(context.getInfo().getActivityTaskQueue())
                .setWorkflowIdConflictPolicy(
                    WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
                .setStaticSummary("lease of a concurrency key")
                .build());
    UpdateOptions<Integer> completed =
        UpdateOptions.newBuilder(Integer.class)
            .setUpdateName("acquire")
            .setWaitForStage(WorkflowUpdateStage.COMPLETED)
            .build();
    return WorkflowClient.executeUpdateWithStart(
        lease::acquire,
        request,
        completed,
        new WithStartWorkflowOperation<>(lease::run, (KeyLeases) null));
  }

  @Override
  public boolean sessionOpen(String sessionId) {
    WorkflowClient client = Activity.getExecutionContext().getWorkflowClient();
    try {
      return client.newUntypedWorkflowStub(sessionId).describe().getStatus()
          == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
    } catch (WorkflowNotFoundException e) {
      return false;
    }
  }
}
