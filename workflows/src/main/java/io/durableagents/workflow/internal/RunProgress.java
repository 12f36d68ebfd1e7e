package io.durableagents.workflow.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import io.durableagents.session.Approval;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.ErrorInfo;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.ToolCallRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * What one run has done so far: its model turns, usage, last text, structured output and tool
 * calls. Builds the run's {@link RunResult}; the tool calls in it are bounded by {@link
 * RunResult#MAX_TOOL_CALL_CHARS} (the transcript has them all).
 */
final class RunProgress {
  private final int run;
  private final List<ToolCallRecord> toolCalls = new ArrayList<>();

  /** Characters of arguments and results in {@code toolCalls}. */
  private long toolCallChars;

  /** Set once a call did not fit: it and every later call of the run are listed omitted. */
  private boolean omittingToolCalls;

  private int steps;
  private Usage usage = Usage.ZERO;
  private String lastText;
  private JsonNode output;

  /** A new run. */
  RunProgress(int run) {
    this.run = run;
  }

  /**
   * A run with {@code stepsUsed} model turns and {@code usageUsed} tokens of its budgets already
   * spent (a fork's).
   */
  RunProgress(int run, int stepsUsed, Usage usageUsed) {
    this.run = run;
    this.steps = stepsUsed;
    this.usage = usageUsed == null ? Usage.ZERO : usageUsed;
  }

  /** A run carried over continue-as-new, as it stood. */
  RunProgress(int run, int steps, Usage usage, List<ToolCallRecord> toolCalls, String lastText) {
    this(run, steps, usage);
    toolCalls.forEach(this::keep);
    this.lastText = lastText;
  }

  int run() {
    return run;
  }

  int steps() {
    return steps;
  }

  Usage usage() {
    return usage;
  }

  String lastText() {
    return lastText;
  }

  List<ToolCallRecord> toolCallsCopy() {
    return new ArrayList<>(toolCalls);
  }

  /** A sub-agent's run for one of this run's calls: its turns and tokens count against this run. */
  void addSubAgentRun(int subSteps, Usage subUsage) {
    steps += Math.max(0, subSteps);
    usage = usage.plus(subUsage);
  }

  /** A position for the run's next tool call: the calls before it are recorded. */
  int recordedCalls() {
    return toolCalls.size();
  }

  /** A model turn answered {@code text} for {@code turnUsage}. */
  void turnTaken(Usage turnUsage, String text) {
    steps++;
    usage = usage.plus(turnUsage);
    lastText = text;
  }

  void outputGiven(JsonNode parsed) {
    output = parsed;
  }

  /**
   * Adds a call to the result: whole while the run's calls fit, omitted from the first that does
   * not.
   */
  void callRecorded(ToolCall call, JsonNode result) {
    long chars = MessageSize.chars(call.arguments()) + MessageSize.chars(result);
    if (!omittingToolCalls && toolCallChars + chars <= RunResult.MAX_TOOL_CALL_CHARS) {
      keep(new ToolCallRecord(call.id(), call.name(), call.arguments(), result));
    } else {
      keep(ToolCallRecord.omitted(call.id(), call.name()));
    }
  }

  private void keep(ToolCallRecord record) {
    toolCalls.add(record);
    omittingToolCalls |= record.isOmitted();
    toolCallChars += MessageSize.chars(record.arguments()) + MessageSize.chars(record.result());
  }

  /** The run's result in {@code status}, at the session's {@code step} and transcript size. */
  RunResult result(
      String sessionId,
      RunStatus status,
      String finishReason,
      ErrorInfo error,
      int step,
      int messageCount) {
    return RunResult.newBuilder()
        .setSessionId(sessionId)
        .setRun(run)
        .setStatus(status)
        .setFinishReason(finishReason)
        .setText(lastText)
        .setOutput(output)
        .setSteps(steps)
        .setUsage(usage)
        .setToolCalls(toolCalls)
        .setError(error)
        .setCheckpointStep(step)
        .setMessageCount(messageCount)
        .build();
  }

  /** The result of a run paused for {@code approval}: no output yet. */
  RunResult pausedResult(
      String sessionId,
      RunStatus status,
      String finishReason,
      Approval approval,
      int step,
      int messageCount) {
    return RunResult.newBuilder()
        .setSessionId(sessionId)
        .setRun(run)
        .setStatus(status)
        .setFinishReason(finishReason)
        .setText(lastText)
        .setSteps(steps)
        .setUsage(usage)
        .setToolCalls(toolCalls)
        .setApproval(approval)
        .setCheckpointStep(step)
        .setMessageCount(messageCount)
        .build();
  }
}
