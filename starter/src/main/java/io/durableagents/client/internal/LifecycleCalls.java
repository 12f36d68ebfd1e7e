package io.durableagents.client.internal;

import io.durableagents.client.AgentClientException;
import io.durableagents.client.InvalidInputException;
import io.durableagents.client.SessionIds;
import io.durableagents.client.SessionNotFoundException;
import io.durableagents.session.SessionLifecycle;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.CloseRequest;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.DeleteWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowUpdateStage;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * A session's end of life: close (its workflow completes after its run; a send starts it again) and
 * delete (close, remove its projection rows on the worker, then delete its workflow executions from
 * Temporal).
 */
public final class LifecycleCalls {
  /** A close answered while the session continued as new is sent to its next run: at most this. */
  private static final int MAX_CLOSE_ATTEMPTS = 5;

  private final ClientCalls calls;
  private final SessionCalls sessions;

  /** Lifecycle calls through {@code calls}; {@code sessions} reads status. */
  public LifecycleCalls(ClientCalls calls, SessionCalls sessions) {
    this.calls = calls;
    this.sessions = sessions;
  }

  /**
   * Closes the session and answers its status, closed. A session already closed answers as it is.
   */
  public SessionStatus close(String sessionId, boolean force) {
    return close(sessionId, null, force);
  }

  /**
   * Closes the chain of workflow runs of the session that started with run {@code firstRunId} (any
   * chain when null) and answers its status; empty when that chain is no longer the session's
   * latest workflow: another request started the session again meanwhile.
   */
  Optional<SessionStatus> closeChain(String sessionId, String firstRunId, boolean force) {
    try {
      return Optional.of(close(sessionId, firstRunId, force));
    } catch (SessionNotFoundException e) {
      Optional<WorkflowExecutionInfo> latest = latest(sessionId);
      if (latest.isPresent() && !latest.get().getFirstRunId().equals(firstRunId)) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private SessionStatus close(String sessionId, String firstRunId, boolean force) {
    SessionIds.requireValid(sessionId);
    AgentSessionWorkflow stub = calls.session(sessionId);
    // With firstRunId, only that chain: a workflow another request started meanwhile is left alone.
    UpdateOptions<SessionStatus> completed =
        UpdateOptions.newBuilder(
                ClientCalls.update(SessionStatus.class, "close", WorkflowUpdateStage.COMPLETED))
            .setFirstExecutionRunId(firstRunId)
            .build();
    CloseRequest request = CloseRequest.close(force);
    for (int attempt = 1; attempt <= MAX_CLOSE_ATTEMPTS; attempt++) {
      SessionStatus status;
      try {
        status =
            calls.call(
                sessionId,
                () -> WorkflowClient.startUpdate(stub::close, request, completed).getResult());
      } catch (RuntimeException e) {
        if (ClientFailures.isNotFound(e)) {
          // No running workflow: a closed session answers its status, anything else is unknown.
          return sessions
              .status(sessionId)
              .filter(s -> s.lifecycle() == SessionLifecycle.CLOSED)
              .orElseThrow(() -> new SessionNotFoundException(sessionId));
        }
        throw ClientFailures.failure(sessionId, e, "Cannot close '" + sessionId + "'", true);
      }
      if (status.lifecycle() == SessionLifecycle.CLOSED) {
        return status;
      }
      // The session continued as new before it could close: close its next run.
    }
    throw new AgentClientException(
        "Session '" + sessionId + "' kept continuing as new; its close did not complete.");
  }

  /**
   * Closes the session, has the worker remove its projection rows (its checkpoint history kept when
   * {@code keepHistory}), and deletes its workflow executions from Temporal. A closed session is
   * started once more for it (its workflow removes the rows).
   */
  public void delete(String sessionId, boolean keepHistory, boolean force) {
    SessionIds.requireValid(sessionId);
    requireOwnTaskQueue(sessionId, "delete");
    WorkflowOptions options =
        WorkflowOptions.newBuilder()
            .setWorkflowId(sessionId)
            .setTaskQueue(calls.options().getTaskQueue())
            .setWorkflowIdConflictPolicy(
                WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
            .setStaticSummary(SessionCalls.staticSummary(null))
            .build();
    UpdateOptions<SessionStatus> completed =
        ClientCalls.update(SessionStatus.class, "close", WorkflowUpdateStage.COMPLETED);
    CloseRequest request = CloseRequest.delete(force, keepHistory);
    RuntimeException notFound = null;
    for (int attempt = 1; ; attempt++) {
      AgentSessionWorkflow stub =
          calls.client().newWorkflowStub(AgentSessionWorkflow.class, options);
      SessionStatus status;
      try {
        status =
            calls.call(
                sessionId,
                () ->
                    WorkflowClient.executeUpdateWithStart(
                        stub::close,
                        request,
                        completed,
                        new WithStartWorkflowOperation<>(
                            stub::run, new SessionStart(sessionId, null, null))));
      } catch (RuntimeException e) {
        RuntimeException mapped =
            ClientFailures.failure(sessionId, e, "Cannot delete '" + sessionId + "'", true);
        if (!(mapped instanceof SessionNotFoundException)) {
          throw mapped;
        }
        notFound = mapped;
        break;
      }
      if (status.lifecycle() == SessionLifecycle.DELETED || attempt >= MAX_CLOSE_ATTEMPTS) {
        break;
      }
    }
    deleteExecutions(sessionId);
    if (notFound != null) {
      throw notFound;
    }
  }

  /**
   * Deletes the workflow executions of the session id: the latest (once it completed) and every
   * older one Temporal's visibility lists (runs closed before the session was started again).
   * Temporal removes them in the background; until then the status query of the latest answers
   * {@code deleted}, which the client reports as no such session.
   */
  private void deleteExecutions(String sessionId) {
    String namespace = calls.client().getOptions().getNamespace();
    Optional<DescribeWorkflowExecutionResponse> latest = describe(namespace, sessionId);
    if (latest.isEmpty()) {
      return;
    }
    if (latest.get().getWorkflowExecutionInfo().getStatus()
        == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      // The workflow completes right after its close answered.
      calls.client().newUntypedWorkflowStub(sessionId).getResult(Void.class);
    }
    Set<String> runIds = new LinkedHashSet<>();
    runIds.add(latest.get().getWorkflowExecutionInfo().getExecution().getRunId());
    calls
        .client()
        .listExecutions("WorkflowId = '" + sessionId + "'")
        .forEach(execution -> runIds.add(execution.getExecution().getRunId()));
    for (String runId : runIds) {
      try {
        calls
            .client()
            .getWorkflowServiceStubs()
            .blockingStub()
            .deleteWorkflowExecution(
                DeleteWorkflowExecutionRequest.newBuilder()
                    .setNamespace(namespace)
                    .setWorkflowExecution(
                        WorkflowExecution.newBuilder().setWorkflowId(sessionId).setRunId(runId))
                    .build());
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.NOT_FOUND) {
          throw new AgentClientException(
              "The rows of '"
                  + sessionId
                  + "' are removed, but Temporal refused to delete its workflow: "
                  + e.getStatus(),
              e);
        }
      }
    }
  }

  /**
   * Refuses {@code command} of a closed session on a task queue other than the one its workflow ran
   * on: the command starts the session's workflow again, on the client's task queue, and one that
   * no worker of the session polls would keep the session there for good.
   */
  void requireOwnTaskQueue(String sessionId, String command) {
    String taskQueue = calls.options().getTaskQueue();
    Optional<WorkflowExecutionInfo> latest = latest(sessionId);
    if (latest.isEmpty()
        || latest.get().getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING
        || latest.get().getTaskQueue().equals(taskQueue)) {
      return;
    }
    throw new InvalidInputException(
        "Session '"
            + sessionId
            + "' ran on task queue '"
            + latest.get().getTaskQueue()
            + "', not '"
            + taskQueue
            + "': a "
            + command
            + " starts its workflow again on the given task queue, which would move the session"
            + " there. Give its own (--task-queue "
            + latest.get().getTaskQueue()
            + ").");
  }

  /** The latest workflow execution under the session id, if Temporal has one. */
  Optional<WorkflowExecutionInfo> latest(String sessionId) {
    return describe(calls.client().getOptions().getNamespace(), sessionId)
        .map(DescribeWorkflowExecutionResponse::getWorkflowExecutionInfo);
  }

  private Optional<DescribeWorkflowExecutionResponse> describe(String namespace, String id) {
    try {
      return Optional.of(
          calls
              .client()
              .getWorkflowServiceStubs()
              .blockingStub()
              .describeWorkflowExecution(
                  DescribeWorkflowExecutionRequest.newBuilder()
                      .setNamespace(namespace)
                      .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id))
                      .build()));
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return Optional.empty();
      }
      throw new AgentClientException("Cannot describe '" + id + "': " + e.getStatus(), e);
    }
  }
}
