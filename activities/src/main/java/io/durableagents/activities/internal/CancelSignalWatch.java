package io.durableagents.activities.internal;

import com.google.protobuf.ByteString;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryReverseRequest;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryReverseResponse;
import io.temporal.serviceclient.WorkflowServiceStubs;

/**
 * Finds out whether a session's run was cancelled while one of its tools runs as a local activity.
 * The Java SDK neither cancels a running local activity nor delivers the workflow's cancel to it,
 * and the workflow only sees a signal once the local activity's workflow task ends; the signal is
 * in the history as soon as it was sent, so the watch reads the history's newest events.
 *
 * <p>Each look reads back from the newest event to the last one it saw; the first look reads back
 * to the workflow task that scheduled the call, since signals after it were not seen by the
 * workflow.
 */
final class CancelSignalWatch {
  /** The session workflow's cancel signal. */
  static final String CANCEL_SIGNAL = "cancel";

  private static final int PAGE_SIZE = 50;

  private final WorkflowServiceStubs service;
  private final String namespace;
  private final WorkflowExecution execution;
  private long seenUpTo = -1;

  CancelSignalWatch(
      WorkflowServiceStubs service, String namespace, String workflowId, String runId) {
    this.service = service;
    this.namespace = namespace;
    this.execution =
        WorkflowExecution.newBuilder().setWorkflowId(workflowId).setRunId(runId).build();
  }

  /**
   * Whether a cancel arrived since the last look: a cancel signal, or the workflow's own cancel.
   */
  boolean cancelArrived() {
    long newest = -1;
    ByteString page = ByteString.EMPTY;
    while (true) {
      GetWorkflowExecutionHistoryReverseResponse response =
          service
              .blockingStub()
              .getWorkflowExecutionHistoryReverse(
                  GetWorkflowExecutionHistoryReverseRequest.newBuilder()
                      .setNamespace(namespace)
                      .setExecution(execution)
                      .setMaximumPageSize(PAGE_SIZE)
                      .setNextPageToken(page)
                      .build());
      for (HistoryEvent event : response.getHistory().getEventsList()) {
        newest = Math.max(newest, event.getEventId());
        if (seenUpTo >= 0
            ? event.getEventId() <= seenUpTo
            : event.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) {
          return done(newest, false);
        }
        if (isCancel(event)) {
          return done(newest, true);
        }
      }
      page = response.getNextPageToken();
      if (page.isEmpty()) {
        return done(newest, false);
      }
    }
  }

  private boolean done(long newest, boolean cancelled) {
    seenUpTo = Math.max(seenUpTo, newest);
    return cancelled;
  }

  private static boolean isCancel(HistoryEvent event) {
    return switch (event.getEventType()) {
      case EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED ->
          CANCEL_SIGNAL.equals(event.getWorkflowExecutionSignaledEventAttributes().getSignalName());
      case EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED,
          EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED ->
          true;
      default -> false;
    };
  }
}
