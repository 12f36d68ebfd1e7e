package io.durableagents.store.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.store.AgentStore;
import io.durableagents.store.StoreException;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.ForkSource;
import io.durableagents.workflow.internal.activity.ActivityNames;
import io.durableagents.workflow.internal.activity.ApprovalNotice;
import io.durableagents.workflow.internal.activity.ModelTurnRequest;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.ActivityTaskCompletedEventAttributes;
import io.temporal.api.history.v1.ActivityTaskScheduledEventAttributes;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.MarkerRecordedEventAttributes;
import io.temporal.api.history.v1.WorkflowExecutionStartedEventAttributes;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.GlobalDataConverter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Re-derives a session's projection rows from its workflow history. The workflow hands every change
 * of the projection to the store as a {@link CheckpointSave}, and Temporal records it in the
 * history: as the input of an {@code agents.SaveCheckpoint} activity (in its {@code
 * ActivityTaskScheduled} event), of an {@code agents.SaveCheckpoint} or {@code
 * agents.SaveCheckpoints} local activity (in its {@code LocalActivity} marker), or folded into the
 * input of an {@code agents.ModelTurn} (the entries of its {@code saves}: written before the turn
 * reads the transcript, or held and written by a later turn or save). Applying those saves again,
 * in history order, writes exactly the rows the live saves wrote (every save is idempotent and
 * keyed, and a save restated after later ones does not move a session back). Approval notifications
 * ({@code agents.NotifyApproval}) are re-applied from their recorded results.
 *
 * <pre>{@code
 * List<WorkflowExecutionHistory> runs = ProjectionRebuilder.fetchRuns(workflowClient, "chat-42");
 * ProjectionRebuilder.Result result =
 *     ProjectionRebuilder.newInstance().rebuild("chat-42", runs, store);
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class ProjectionRebuilder {
  /** The activity type whose inputs are the checkpoint saves. */
  public static final String SAVE_CHECKPOINT = ActivityNames.PREFIX + "SaveCheckpoint";

  /** The activity type whose input is a list of checkpoint saves, written in one transaction. */
  public static final String SAVE_CHECKPOINTS = ActivityNames.PREFIX + "SaveCheckpoints";

  /** The activity type whose results are the approval notification times. */
  public static final String NOTIFY_APPROVAL = ActivityNames.PREFIX + "NotifyApproval";

  /** The model turn activity type, whose input may carry a folded checkpoint save. */
  public static final String MODEL_TURN = ActivityNames.PREFIX + "ModelTurn";

  /** The marker Temporal's Java SDK records for a local activity, and its detail keys. */
  private static final String LOCAL_ACTIVITY_MARKER = "LocalActivity";

  private static final String MARKER_TYPE = "type";
  private static final String MARKER_INPUT = "input";

  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /** What a rebuild wrote. */
  public record Result(
      String sessionId, int saves, int messages, int historyEntries, int approvalsNotified) {}

  private final DataConverter converter;

  private ProjectionRebuilder(DataConverter converter) {
    this.converter = converter;
  }

  /**
   * A rebuilder decoding payloads with the process's global data converter: Temporal's default one,
   * unless the application registered another with {@link GlobalDataConverter#register}.
   */
  public static ProjectionRebuilder newInstance() {
    return new ProjectionRebuilder(GlobalDataConverter.get());
  }

  /**
   * A rebuilder decoding payloads with {@code converter}: the one the workers use, when it is not
   * the default (for example one with an encryption codec).
   */
  public static ProjectionRebuilder newInstance(DataConverter converter) {
    return new ProjectionRebuilder(Objects.requireNonNull(converter, "converter"));
  }

  /**
   * The histories of every run of the session workflow {@code sessionId}, oldest first: the latest
   * run and the runs it continued as new from. An earlier workflow that used the same id (a
   * different execution) is not included.
   *
   * @throws io.temporal.client.WorkflowNotFoundException if there is no such workflow
   */
  public static List<WorkflowExecutionHistory> fetchRuns(WorkflowClient client, String sessionId) {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(sessionId, "sessionId");
    List<WorkflowExecutionHistory> runs = new ArrayList<>();
    WorkflowExecutionHistory run = client.fetchHistory(sessionId);
    while (true) {
      runs.add(run);
      String previous = continuedFrom(run);
      if (previous.isEmpty()) {
        break;
      }
      run = client.fetchHistory(sessionId, previous);
    }
    Collections.reverse(runs);
    return List.copyOf(runs);
  }

  private static String continuedFrom(WorkflowExecutionHistory run) {
    List<HistoryEvent> events = run.getEvents();
    if (events.isEmpty() || !events.get(0).hasWorkflowExecutionStartedEventAttributes()) {
      return "";
    }
    return events.get(0).getWorkflowExecutionStartedEventAttributes().getContinuedExecutionRunId();
  }

  /**
   * The checkpoint saves recorded in {@code runs} (oldest run first), in history order: inputs of
   * {@code agents.SaveCheckpoint} activities and local activities, and saves folded into {@code
   * agents.ModelTurn} inputs (in the order the turn writes them).
   */
  public List<CheckpointSave> saves(List<WorkflowExecutionHistory> runs) {
    List<CheckpointSave> saves = new ArrayList<>();
    for (WorkflowExecutionHistory run : runs) {
      for (HistoryEvent event : run.getEvents()) {
        if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
          ActivityTaskScheduledEventAttributes scheduled =
              event.getActivityTaskScheduledEventAttributes();
          if (scheduled.hasInput()) {
            addSave(saves, scheduled.getActivityType().getName(), scheduled.getInput(), event);
          }
        } else if (event.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED) {
          MarkerRecordedEventAttributes marker = event.getMarkerRecordedEventAttributes();
          if (LOCAL_ACTIVITY_MARKER.equals(marker.getMarkerName())
              && !marker.hasFailure()
              && marker.containsDetails(MARKER_TYPE)
              && marker.containsDetails(MARKER_INPUT)) {
            String type = decode(marker.getDetailsOrThrow(MARKER_TYPE), String.class, event);
            addSave(saves, type, marker.getDetailsOrThrow(MARKER_INPUT), event);
          }
        }
      }
    }
    return List.copyOf(saves);
  }

  private void addSave(
      List<CheckpointSave> saves, String type, Payloads input, HistoryEvent event) {
    if (SAVE_CHECKPOINT.equals(type)) {
      saves.add(decode(input, CheckpointSave.class, event));
    } else if (SAVE_CHECKPOINTS.equals(type)) {
      JsonNode several = decode(input, JsonNode.class, event);
      if (several != null && several.isArray()) {
        several.forEach(save -> addFolded(saves, save, event));
      }
    } else if (MODEL_TURN.equals(type)) {
      ModelTurnRequest request = decode(input, ModelTurnRequest.class, event);
      if (request != null) {
        saves.addAll(request.foldedSaves());
      }
    }
  }

  private static void addFolded(List<CheckpointSave> saves, JsonNode folded, HistoryEvent event) {
    if (folded == null || !folded.isObject()) {
      return;
    }
    try {
      saves.add(JSON.treeToValue(folded, CheckpointSave.class));
    } catch (JsonProcessingException e) {
      throw new StoreException(
          "cannot decode a checkpoint save folded into the model turn of history event "
              + event.getEventId()
              + ": "
              + e.getOriginalMessage(),
          e);
    }
  }

  /**
   * Approval notifications that completed in {@code runs}: approval id to the {@code notifiedAt}
   * the activity recorded (approvals whose agent has no notifier report 0 and are left out).
   */
  public Map<String, Long> notifications(List<WorkflowExecutionHistory> runs) {
    Map<String, Long> notified = new LinkedHashMap<>();
    for (WorkflowExecutionHistory run : runs) {
      Map<Long, ApprovalNotice> notices = new HashMap<>();
      for (HistoryEvent event : run.getEvents()) {
        if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
          ActivityTaskScheduledEventAttributes scheduled =
              event.getActivityTaskScheduledEventAttributes();
          if (NOTIFY_APPROVAL.equals(scheduled.getActivityType().getName())) {
            notices.put(
                event.getEventId(), decode(scheduled.getInput(), ApprovalNotice.class, event));
          }
        } else if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) {
          ActivityTaskCompletedEventAttributes completed =
              event.getActivityTaskCompletedEventAttributes();
          ApprovalNotice notice = notices.get(completed.getScheduledEventId());
          if (notice != null && notice.approval() != null) {
            Long at = decode(completed.getResult(), Long.class, event);
            if (at != null && at > 0) {
              notified.putIfAbsent(notice.approval().approvalId(), at);
            }
          }
        }
      }
    }
    return Collections.unmodifiableMap(notified);
  }

  /**
   * Replaces the projection rows of {@code sessionId} in {@code store} with what the saves in
   * {@code runs} (oldest first, as {@link #fetchRuns} returns them) write, then re-applies the
   * recorded approval notifications. See {@link AgentStore#rebuild}.
   */
  public Result rebuild(
      String sessionId, List<WorkflowExecutionHistory> runs, CheckpointStore store) {
    Objects.requireNonNull(store, "store");
    List<CheckpointSave> saves = saves(runs);
    for (CheckpointSave save : saves) {
      if (!sessionId.equals(save.sessionId())) {
        throw new IllegalArgumentException(
            "the history holds a save of session '"
                + save.sessionId()
                + "', not of '"
                + sessionId
                + "': is it the history of another workflow?");
      }
    }
    store.rebuild(sessionId, saves);
    Optional<ForkSource> fork = forkSource(runs);
    if (fork.isPresent() && !saves.isEmpty()) {
      store.recordLineage(
          sessionId,
          saves.get(0).executionId(),
          fork.get().parentSessionId(),
          fork.get().parentStep(),
          (fork.get().patch() == null ? ForkPatch.NONE : fork.get().patch()).summary());
    }
    Map<String, Long> notified = notifications(runs);
    notified.forEach((approvalId, at) -> store.markApprovalNotified(sessionId, approvalId, at));
    int messages = saves.stream().mapToInt(CheckpointSave::messageCount).max().orElse(0);
    int entries = store.history(sessionId, 0).size();
    return new Result(sessionId, saves.size(), messages, entries, notified.size());
  }

  /** The fork a session started as, from the input of its first run, if it is a fork. */
  Optional<ForkSource> forkSource(List<WorkflowExecutionHistory> runs) {
    if (runs.isEmpty()) {
      return Optional.empty();
    }
    List<HistoryEvent> events = runs.get(0).getEvents();
    if (events.isEmpty() || !events.get(0).hasWorkflowExecutionStartedEventAttributes()) {
      return Optional.empty();
    }
    WorkflowExecutionStartedEventAttributes started =
        events.get(0).getWorkflowExecutionStartedEventAttributes();
    if (!started.hasInput() || !started.getContinuedExecutionRunId().isEmpty()) {
      return Optional.empty();
    }
    SessionStart start = decode(started.getInput(), SessionStart.class, events.get(0));
    return Optional.ofNullable(start == null ? null : start.fork());
  }

  /** {@link #rebuild(String, List, CheckpointStore)} of a workflow with one run. */
  public Result rebuild(String sessionId, WorkflowExecutionHistory history, CheckpointStore store) {
    return rebuild(sessionId, List.of(history), store);
  }

  private <T> T decode(Payloads payloads, Class<T> type, HistoryEvent event) {
    try {
      return converter.fromPayloads(0, Optional.of(payloads), type, type);
    } catch (RuntimeException e) {
      throw new StoreException(
          "cannot decode the "
              + type.getSimpleName()
              + " of history event "
              + event.getEventId()
              + ": "
              + e.getMessage(),
          e);
    }
  }
}
