package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Compares two agent trajectories (transcripts): the steps of each (one per assistant turn: its
 * text and its tool calls with their results), the first step where they differ (call ids ignored)
 * and the kinds of drift between them. Pure: no IO, usable anywhere.
 *
 * <pre>{@code
 * Trajectories.Comparison diff = Trajectories.compare(messagesA, "stop", messagesB, "stop");
 * if (diff.divergedAt() != null) { ... }
 * }</pre>
 */
public final class Trajectories {
  private Trajectories() {}

  /** One assistant turn. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Step(
      @JsonProperty("index") int index,
      @JsonProperty("text") String text,
      @JsonProperty("toolCalls") List<ToolCallRecord> toolCalls) {}

  /** How two trajectories differ. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Drift(
      @JsonProperty("toolOrder") boolean toolOrder,
      @JsonProperty("arguments") List<String> arguments,
      @JsonProperty("stepCount") boolean stepCount,
      @JsonProperty("finishReason") boolean finishReason) {

    /** True when the trajectories do not differ. */
    public boolean none() {
      return !toolOrder && arguments.isEmpty() && !stepCount && !finishReason;
    }
  }

  /**
   * Two trajectories side by side: their steps, finish reasons, the first step where they differ
   * (null when none) and how they differ.
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Comparison(
      @JsonProperty("stepsA") List<Step> stepsA,
      @JsonProperty("stepsB") List<Step> stepsB,
      @JsonProperty("finishReasonA") String finishReasonA,
      @JsonProperty("finishReasonB") String finishReasonB,
      @JsonProperty("divergedAt") Integer divergedAt,
      @JsonProperty("drift") Drift drift) {}

  /** The steps of a transcript: one per assistant message, with the results of its calls. */
  public static List<Step> steps(List<Message> messages) {
    Map<String, JsonNode> results = new HashMap<>();
    for (Message message : messages) {
      if (message.role() == Role.TOOL) {
        results.put(message.toolCallId(), message.result());
      }
    }
    List<Step> steps = new ArrayList<>();
    for (Message message : messages) {
      if (message.role() != Role.ASSISTANT) {
        continue;
      }
      List<ToolCallRecord> calls = new ArrayList<>();
      for (ToolCall call : message.toolCalls()) {
        calls.add(
            new ToolCallRecord(call.id(), call.name(), call.arguments(), results.get(call.id())));
      }
      steps.add(new Step(steps.size(), message.text(), calls));
    }
    return steps;
  }

  /** Compares two transcripts step by step, with their runs' finish reasons. */
  public static Comparison compare(
      List<Message> a, String finishReasonA, List<Message> b, String finishReasonB) {
    List<Step> stepsA = steps(a);
    List<Step> stepsB = steps(b);
    Integer divergedAt = null;
    int common = Math.min(stepsA.size(), stepsB.size());
    for (int i = 0; i < common && divergedAt == null; i++) {
      if (!sameStep(stepsA.get(i), stepsB.get(i))) {
        divergedAt = i;
      }
    }
    if (divergedAt == null && stepsA.size() != stepsB.size()) {
      divergedAt = common;
    }
    boolean toolOrder = !toolNames(stepsA).equals(toolNames(stepsB));
    List<String> arguments = new ArrayList<>();
    for (int i = 0; i < common; i++) {
      List<ToolCallRecord> callsA = stepsA.get(i).toolCalls();
      List<ToolCallRecord> callsB = stepsB.get(i).toolCalls();
      for (int j = 0; j < Math.min(callsA.size(), callsB.size()); j++) {
        ToolCallRecord x = callsA.get(j);
        ToolCallRecord y = callsB.get(j);
        if (x.name().equals(y.name()) && !Objects.equals(x.arguments(), y.arguments())) {
          arguments.add("step " + i + " call " + j + " (" + x.name() + ")");
        }
      }
    }
    Drift drift =
        new Drift(
            toolOrder,
            List.copyOf(arguments),
            stepsA.size() != stepsB.size(),
            !Objects.equals(finishReasonA, finishReasonB));
    return new Comparison(stepsA, stepsB, finishReasonA, finishReasonB, divergedAt, drift);
  }

  /** Same text, same calls (name, arguments, result); call ids are ignored. */
  private static boolean sameStep(Step x, Step y) {
    if (!Objects.equals(x.text(), y.text()) || x.toolCalls().size() != y.toolCalls().size()) {
      return false;
    }
    for (int i = 0; i < x.toolCalls().size(); i++) {
      ToolCallRecord p = x.toolCalls().get(i);
      ToolCallRecord q = y.toolCalls().get(i);
      if (!p.name().equals(q.name())
          || !Objects.equals(p.arguments(), q.arguments())
          || !Objects.equals(p.result(), q.result())) {
        return false;
      }
    }
    return true;
  }

  private static List<String> toolNames(List<Step> steps) {
    List<String> names = new ArrayList<>();
    for (Step step : steps) {
      for (ToolCallRecord call : step.toolCalls()) {
        names.add(call.name());
      }
    }
    return names;
  }
}
