package io.durableagents.testing.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.internal.activity.ModelTurnRequest;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.failure.v1.Failure;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.MarkerRecordedEventAttributes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The model turn activities a session's workflow history records, in the order the workflow
 * scheduled them: regular activities (scheduled, then closed) and local ones (one marker each,
 * written when the local activity completed or failed for good).
 *
 * <p>{@link #violations} states what "a recorded model turn is never generated again" means in the
 * history: for each step, every activity but the last failed with {@link
 * ModelTurnRequest#HELD_SAVES_UNKNOWN} or {@code store_unavailable} (nothing was recorded, and the
 * workflow sends the turn again, by design: restated, or after waiting for the store), and the last
 * one completed; nothing is scheduled for a step after an activity of that step completed. Whether
 * a failed turn had generated anything is the ledgers' to say, not the history's.
 *
 * <p>For the repository's crash tests (the crash recovery test and the chaos suite), which check
 * that no recorded model turn was generated again; not an API.
 */
public final class ModelTurnActivities {
  private static final ObjectMapper JSON = new ObjectMapper();

  public enum Outcome {
    COMPLETED,
    FAILED,
    TIMED_OUT,
    CANCELED,
    OPEN
  }

  /** One model turn activity (all of its attempts). {@code failureType} only when it failed. */
  public record Entry(String activityId, int step, Outcome outcome, String failureType) {
    public boolean heldSavesUnknown() {
      return outcome == Outcome.FAILED && FailureTypes.HELD_SAVES_UNKNOWN.equals(failureType);
    }

    /** A failure after which the workflow sends the turn again by design. */
    public boolean resentByDesign() {
      return heldSavesUnknown()
          || (outcome == Outcome.FAILED && FailureTypes.STORE_UNAVAILABLE.equals(failureType));
    }

    @Override
    public String toString() {
      return activityId
          + " step "
          + step
          + " "
          + outcome
          + (failureType == null ? "" : " " + failureType);
    }
  }

  private final List<Entry> entries;

  private ModelTurnActivities(List<Entry> entries) {
    this.entries = List.copyOf(entries);
  }

  public static ModelTurnActivities of(List<HistoryEvent> events) {
    List<Entry> entries = new ArrayList<>();
    Map<Long, Integer> byScheduledEvent = new HashMap<>();
    for (HistoryEvent event : events) {
      switch (event.getEventType()) {
        case EVENT_TYPE_ACTIVITY_TASK_SCHEDULED -> {
          String input = modelTurnInput(event);
          if (input != null) {
            byScheduledEvent.put(event.getEventId(), entries.size());
            entries.add(
                new Entry(
                    event.getActivityTaskScheduledEventAttributes().getActivityId(),
                    step(input),
                    Outcome.OPEN,
                    null));
          }
        }
        case EVENT_TYPE_ACTIVITY_TASK_COMPLETED ->
            close(
                entries,
                byScheduledEvent,
                event.getActivityTaskCompletedEventAttributes().getScheduledEventId(),
                Outcome.COMPLETED,
                null);
        case EVENT_TYPE_ACTIVITY_TASK_FAILED ->
            close(
                entries,
                byScheduledEvent,
                event.getActivityTaskFailedEventAttributes().getScheduledEventId(),
                Outcome.FAILED,
                event.getActivityTaskFailedEventAttributes().getFailure());
        case EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT ->
            close(
                entries,
                byScheduledEvent,
                event.getActivityTaskTimedOutEventAttributes().getScheduledEventId(),
                Outcome.TIMED_OUT,
                null);
        case EVENT_TYPE_ACTIVITY_TASK_CANCELED ->
            close(
                entries,
                byScheduledEvent,
                event.getActivityTaskCanceledEventAttributes().getScheduledEventId(),
                Outcome.CANCELED,
                null);
        case EVENT_TYPE_MARKER_RECORDED -> {
          MarkerRecordedEventAttributes marker = event.getMarkerRecordedEventAttributes();
          String input = modelTurnInput(event);
          if (input != null) {
            boolean failed = marker.hasFailure();
            entries.add(
                new Entry(
                    text(
                        marker
                            .getDetailsOrThrow("activityId")
                            .getPayloads(0)
                            .getData()
                            .toStringUtf8()),
                    step(input),
                    failed ? Outcome.FAILED : Outcome.COMPLETED,
                    failed ? applicationType(marker.getFailure()) : null));
          }
        }
        default -> {}
      }
    }
    return new ModelTurnActivities(entries);
  }

  public List<Entry> entries() {
    return entries;
  }

  /** The activities of {@code step}, in the order they were scheduled. */
  public List<Entry> ofStep(int step) {
    return entries.stream().filter(e -> e.step() == step).toList();
  }

  /** The steps whose model turn completed, in order. */
  public List<Integer> completedSteps() {
    return entries.stream().filter(e -> e.outcome() == Outcome.COMPLETED).map(Entry::step).toList();
  }

  /** Every way the history breaks the rule of the class comment; empty when it keeps it. */
  public List<String> violations() {
    List<String> violations = new ArrayList<>();
    Map<Integer, List<Entry>> bySteps = new LinkedHashMap<>();
    int lastStep = Integer.MIN_VALUE;
    for (Entry entry : entries) {
      if (entry.step() < lastStep) {
        violations.add(
            "a model turn for step "
                + entry.step()
                + " after one for step "
                + lastStep
                + ": "
                + entries);
      }
      lastStep = Math.max(lastStep, entry.step());
      bySteps.computeIfAbsent(entry.step(), s -> new ArrayList<>()).add(entry);
    }
    bySteps.forEach(
        (step, activities) -> {
          for (int i = 0; i < activities.size() - 1; i++) {
            Entry earlier = activities.get(i);
            if (!earlier.resentByDesign()) {
              violations.add(
                  "step "
                      + step
                      + ": model turn activity "
                      + activities.get(i + 1).activityId()
                      + " was scheduled after "
                      + earlier
                      + ", which is not a "
                      + FailureTypes.HELD_SAVES_UNKNOWN
                      + " or "
                      + FailureTypes.STORE_UNAVAILABLE
                      + " failure (the workflow sent the turn again): "
                      + activities);
            }
          }
          Entry last = activities.get(activities.size() - 1);
          if (last.outcome() != Outcome.COMPLETED) {
            violations.add(
                "step " + step + ": the last model turn activity is " + last + ", not completed");
          }
        });
    return violations;
  }

  private static final String MODEL_TURN = "agents.ModelTurn";

  /**
   * The input of {@code event} when it schedules a model turn or records a local one, else null (as
   * the activities tests' {@code ModelTurnInputs} reads it).
   */
  private static String modelTurnInput(HistoryEvent event) {
    if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
      var scheduled = event.getActivityTaskScheduledEventAttributes();
      return scheduled.getActivityType().getName().equals(MODEL_TURN)
          ? scheduled.getInput().getPayloads(0).getData().toStringUtf8()
          : null;
    }
    if (event.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED) {
      MarkerRecordedEventAttributes marker = event.getMarkerRecordedEventAttributes();
      boolean modelTurn =
          marker.containsDetails("type")
              && marker
                  .getDetailsOrThrow("type")
                  .getPayloads(0)
                  .getData()
                  .toStringUtf8()
                  .contains("ModelTurn");
      return modelTurn && marker.containsDetails("input")
          ? marker.getDetailsOrThrow("input").getPayloads(0).getData().toStringUtf8()
          : null;
    }
    return null;
  }

  private static void close(
      List<Entry> entries,
      Map<Long, Integer> byScheduledEvent,
      long scheduledEventId,
      Outcome outcome,
      Failure failure) {
    Integer index = byScheduledEvent.get(scheduledEventId);
    if (index == null) {
      return;
    }
    Entry open = entries.get(index);
    entries.set(
        index,
        new Entry(
            open.activityId(),
            open.step(),
            outcome,
            failure == null ? null : applicationType(failure)));
  }

  /** The type of the first application failure in the chain, or a description of the chain. */
  private static String applicationType(Failure failure) {
    for (Failure f = failure; f != null; f = f.hasCause() ? f.getCause() : null) {
      if (f.hasApplicationFailureInfo()) {
        return f.getApplicationFailureInfo().getType();
      }
    }
    return "(no application failure: " + failure.getMessage() + ")";
  }

  private static int step(String input) {
    JsonNode request = json(input);
    if (!request.path("step").isInt()) {
      throw new IllegalStateException("a model turn input without a step: " + input);
    }
    return request.path("step").asInt();
  }

  private static String text(String json) {
    return json(json).asText();
  }

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
