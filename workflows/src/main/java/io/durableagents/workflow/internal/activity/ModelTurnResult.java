package io.durableagents.workflow.internal.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import java.util.List;

/**
 * The recorded answer of one model turn: never generated again once Temporal has it. {@code checks}
 * holds one {@link CallCheck} per tool call, in call order (absent in histories recorded before
 * approvals existed: every call is then simply runnable). For an agent with an output schema, a
 * final answer carries {@code output} (the parsed, validated JSON) or {@code outputError}. {@code
 * startedAt} and {@code finishedAt} are the worker's wall-clock times around the provider call
 * (epoch milliseconds; absent in results of older versions). {@code compaction} is set when the
 * turn's view of the conversation was shortened to fit the model's context window.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ModelTurnResult(
    @JsonProperty("text") String text,
    @JsonProperty("toolCalls") List<ToolCall> toolCalls,
    @JsonProperty("finishReason") String finishReason,
    @JsonProperty("usage") Usage usage,
    @JsonProperty("checks") List<CallCheck> checks,
    @JsonProperty("output") JsonNode output,
    @JsonProperty("outputError") String outputError,
    @JsonProperty("drift") String drift,
    @JsonProperty("startedAt") Long startedAt,
    @JsonProperty("finishedAt") Long finishedAt,
    @JsonProperty("compaction") ContextCompaction compaction) {

  public ModelTurnResult(
      String text,
      List<ToolCall> toolCalls,
      String finishReason,
      Usage usage,
      List<CallCheck> checks) {
    this(text, toolCalls, finishReason, usage, checks, null, null, null, null, null, null);
  }

  /** This answer with its parsed structured output, or the reason it is not valid. */
  public ModelTurnResult withOutput(JsonNode parsed, String error) {
    return new ModelTurnResult(
        text,
        toolCalls,
        finishReason,
        usage,
        checks,
        parsed,
        error,
        drift,
        startedAt,
        finishedAt,
        compaction);
  }

  /**
   * This result, noting that the turn ran on the run's recorded definition although the worker's is
   * another ({@code drift} says what changed).
   */
  public ModelTurnResult withDrift(String drift) {
    return new ModelTurnResult(
        text,
        toolCalls,
        finishReason,
        usage,
        checks,
        output,
        outputError,
        drift,
        startedAt,
        finishedAt,
        compaction);
  }

  /** This result, timed: the provider call ran from {@code startedAt} to {@code finishedAt}. */
  public ModelTurnResult withTimes(long startedAt, long finishedAt) {
    return new ModelTurnResult(
        text,
        toolCalls,
        finishReason,
        usage,
        checks,
        output,
        outputError,
        drift,
        startedAt,
        finishedAt,
        compaction);
  }

  /** This result, noting that its view of the conversation was compacted ({@code compaction}). */
  public ModelTurnResult withCompaction(ContextCompaction compaction) {
    return new ModelTurnResult(
        text,
        toolCalls,
        finishReason,
        usage,
        checks,
        output,
        outputError,
        drift,
        startedAt,
        finishedAt,
        compaction);
  }

  public ModelTurnResult {
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    usage = usage == null ? Usage.ZERO : usage;
    checks = checks == null ? null : List.copyOf(checks);
  }

  /** The check of call {@code index}; runnable when none was recorded. */
  public CallCheck check(int index) {
    return checks == null || index >= checks.size() ? CallCheck.RUNNABLE : checks.get(index);
  }
}
