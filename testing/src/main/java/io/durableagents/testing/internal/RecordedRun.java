package io.durableagents.testing.internal;

import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.WorkflowExecutionStartedEventAttributes;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.common.converter.GlobalDataConverter;
import java.util.Optional;

/**
 * One workflow run's history to replay, with the ids a report names it by. A history from a file
 * does not hold its workflow id, so it is read from the session's start input (the session id is
 * the workflow id), and the run id from the started event.
 *
 * @param history null when the source could not be read as a history
 * @param unreadable why not, when {@code history} is null
 */
public record RecordedRun(
    WorkflowExecutionHistory history,
    String workflowId,
    String runId,
    String source,
    String unreadable) {
  public static final String UNKNOWN_RUN = "-";

  /** A history whose ids are known, as fetched from a server. */
  public static RecordedRun of(
      WorkflowExecutionHistory history, String workflowId, String runId, String source) {
    return new RecordedRun(history, workflowId, runId, source, null);
  }

  /** A history whose ids are read from its events; {@code fallbackId} if the input says none. */
  public static RecordedRun fromEvents(
      WorkflowExecutionHistory history, String fallbackId, String source) {
    Optional<WorkflowExecutionStartedEventAttributes> started =
        history.getEvents().stream()
            .filter(HistoryEvent::hasWorkflowExecutionStartedEventAttributes)
            .map(HistoryEvent::getWorkflowExecutionStartedEventAttributes)
            .findFirst();
    String runId =
        started
            .map(WorkflowExecutionStartedEventAttributes::getOriginalExecutionRunId)
            .filter(id -> !id.isEmpty())
            .orElse(UNKNOWN_RUN);
    String workflowId =
        started.flatMap(RecordedRun::sessionId).filter(id -> !id.isBlank()).orElse(fallbackId);
    return of(history, workflowId, runId, source);
  }

  /** A source that is not a history at all: it is reported as a failure, not skipped. */
  public static RecordedRun unreadable(String name, String source, String why) {
    return new RecordedRun(null, name, UNKNOWN_RUN, source, why);
  }

  private static Optional<String> sessionId(WorkflowExecutionStartedEventAttributes started) {
    if (!started.hasInput() || started.getInput().getPayloadsCount() == 0) {
      return Optional.empty();
    }
    try {
      SessionStart start =
          GlobalDataConverter.get()
              .fromPayloads(
                  0, Optional.of(started.getInput()), SessionStart.class, SessionStart.class);
      return Optional.ofNullable(start).map(SessionStart::sessionId);
    } catch (RuntimeException e) {
      // Another workflow type, or an encoded payload: the caller's name stands in.
      return Optional.empty();
    }
  }
}
