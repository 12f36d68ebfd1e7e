package io.durableagents.app.limits;

import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The workflow runs of one session, oldest first, with the size of each as the server reports it.
 */
final class RunChain {
  /**
   * One workflow run: events and bytes of its history (DescribeWorkflowExecution's {@code
   * history_length} and {@code history_size_bytes}), the model turns it scheduled, and the bytes of
   * its start event (the continue-as-new input it began from).
   */
  record Run(String runId, long events, long bytes, int modelTurns, int startEventBytes) {
    double bytesPerTurn() {
      return modelTurns == 0 ? Double.NaN : (double) bytes / modelTurns;
    }

    @Override
    public String toString() {
      return String.format(
          "run %s: %d events, %d bytes, %d model turns, %.0f bytes/turn, start event %d bytes",
          runId.substring(0, 8), events, bytes, modelTurns, bytesPerTurn(), startEventBytes);
    }
  }

  private RunChain() {}

  static List<Run> of(WorkflowServiceStubs service, WorkflowClient client, String workflowId) {
    List<Run> runs = new ArrayList<>();
    String runId = describe(service, workflowId, "").getExecution().getRunId();
    while (!runId.isEmpty()) {
      WorkflowExecutionInfo info = describe(service, workflowId, runId);
      WorkflowExecutionHistory history = client.fetchHistory(workflowId, runId);
      HistoryEvent first = history.getEvents().get(0);
      int turns = 0;
      for (HistoryEvent event : history.getEvents()) {
        if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
            && event
                .getActivityTaskScheduledEventAttributes()
                .getActivityType()
                .getName()
                .equals("agents.ModelTurn")) {
          turns++;
        }
      }
      runs.add(
          new Run(
              runId,
              info.getHistoryLength(),
              info.getHistorySizeBytes(),
              turns,
              first.getSerializedSize()));
      runId = first.getWorkflowExecutionStartedEventAttributes().getContinuedExecutionRunId();
    }
    Collections.reverse(runs);
    return runs;
  }

  private static WorkflowExecutionInfo describe(
      WorkflowServiceStubs service, String workflowId, String runId) {
    return service
        .blockingStub()
        .describeWorkflowExecution(
            DescribeWorkflowExecutionRequest.newBuilder()
                .setNamespace("default")
                .setExecution(
                    WorkflowExecution.newBuilder().setWorkflowId(workflowId).setRunId(runId))
                .build())
        .getWorkflowExecutionInfo();
  }
}
