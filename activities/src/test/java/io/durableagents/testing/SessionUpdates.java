package io.durableagents.testing;

import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowUpdateStage;

/** What {@code AgentClient.send} does, for tests that drive session workflows directly. */
public final class SessionUpdates {
  private SessionUpdates() {}

  /**
   * Update-with-start of {@code send} on the workflow of {@code start.sessionId()} (started on
   * {@code taskQueue} if it does not run yet), waiting for the run's answer.
   */
  public static RunResult sendWithStart(
      WorkflowClient client, String taskQueue, SendRequest request, SessionStart start) {
    AgentSessionWorkflow stub =
        client.newWorkflowStub(
            AgentSessionWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(start.sessionId())
                .setTaskQueue(taskQueue)
                .setWorkflowIdConflictPolicy(
                    WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
                .build());
    return WorkflowClient.executeUpdateWithStart(
        stub::send,
        request,
        UpdateOptions.newBuilder(RunResult.class)
            .setUpdateName("send")
            .setWaitForStage(WorkflowUpdateStage.COMPLETED)
            .build(),
        new WithStartWorkflowOperation<>(stub::run, start));
  }
}
