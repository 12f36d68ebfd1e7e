package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import io.durableagents.session.Approval;
import io.durableagents.session.RunStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The outcome of one run: the work one message triggered. {@code steps}, {@code usage} and {@code
 * toolCalls} count this run only; {@code messages} is the whole conversation.
 *
 * <p>{@code continued} is true on an answer given because the session continued as new while the
 * caller waited: the run goes on in the session's next workflow run, and the caller sends empty
 * input to attach to it again ({@code AgentClient} does this transparently).
 *
 * <p>The workflow returns it without {@code messages} (the transcript lives in the store, never in
 * Temporal payloads); {@code AgentClient} fills them in from the projection. For the same reason
 * {@code toolCalls} carries arguments and results only up to {@link #MAX_TOOL_CALL_CHARS} in all:
 * the calls after that are listed {@linkplain ToolCallRecord#isOmitted() omitted}, and {@link
 * #withMessages} restores them from the transcript.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RunResult(
    @JsonProperty("sessionId") String sessionId,
    @JsonProperty("run") int run,
    @JsonProperty("status") RunStatus status,
    @JsonProperty("finishReason") String finishReason,
    @JsonProperty("text") String text,
    @JsonProperty("output") JsonNode output,
    @JsonProperty("steps") int steps,
    @JsonProperty("usage") Usage usage,
    @JsonProperty("toolCalls") List<ToolCallRecord> toolCalls,
    @JsonProperty("approval") Approval approval,
    @JsonProperty("error") ErrorInfo error,
    @JsonProperty("checkpointStep") int checkpointStep,
    @JsonProperty("messageCount") int messageCount,
    @JsonProperty("messages") List<Message> messages,
    @JsonProperty("continued") Boolean continued) {

  /**
   * Characters of tool-call arguments and results (as the workflow estimates them) that a run's
   * result carries, well under Temporal's 2 MB payload limit: a run's calls are in every answer to
   * a sender and in the state carried over continue-as-new, so they must not grow with the run.
   */
  public static final int MAX_TOOL_CALL_CHARS = 256 * 1024;

  /** A result without the {@code continued} mark. */
  public RunResult(
      String sessionId,
      int run,
      RunStatus status,
      String finishReason,
      String text,
      JsonNode output,
      int steps,
      Usage usage,
      List<ToolCallRecord> toolCalls,
      Approval approval,
      ErrorInfo error,
      int checkpointStep,
      int messageCount,
      List<Message> messages) {
    this(
        sessionId,
        run,
        status,
        finishReason,
        text,
        output,
        steps,
        usage,
        toolCalls,
        approval,
        error,
        checkpointStep,
        messageCount,
        messages,
        null);
  }

  public RunResult {
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    usage = usage == null ? Usage.ZERO : usage;
  }

  /**
   * A copy carrying the whole conversation, with the arguments and results of omitted tool calls
   * read back from it.
   */
  public RunResult withMessages(List<Message> conversation) {
    return new RunResult(
        sessionId,
        run,
        status,
        finishReason,
        text,
        output,
        steps,
        usage,
        restoreOmitted(toolCalls, conversation),
        approval,
        error,
        checkpointStep,
        messageCount,
        conversation,
        continued);
  }

  /** {@code calls} with each omitted one completed from the latest messages that hold its id. */
  private static List<ToolCallRecord> restoreOmitted(
      List<ToolCallRecord> calls, List<Message> conversation) {
    if (conversation == null || calls.stream().noneMatch(ToolCallRecord::isOmitted)) {
      return calls;
    }
    Map<String, ToolCall> asked = new HashMap<>();
    Map<String, JsonNode> results = new HashMap<>();
    for (Message message : conversation) {
      for (ToolCall call : message.toolCalls()) {
        asked.put(call.id(), call);
      }
      if (Message.TOOL.equals(message.role()) && message.toolCallId() != null) {
        results.put(message.toolCallId(), message.result());
      }
    }
    List<ToolCallRecord> restored = new ArrayList<>(calls.size());
    for (ToolCallRecord call : calls) {
      ToolCall request = asked.get(call.id());
      if (call.isOmitted() && request != null && results.containsKey(call.id())) {
        restored.add(
            new ToolCallRecord(
                call.id(), call.name(), request.arguments(), results.get(call.id())));
      } else {
        restored.add(call);
      }
    }
    return restored;
  }

  /** True when the caller should attach again: the session continued as new meanwhile. */
  public boolean isContinued() {
    return Boolean.TRUE.equals(continued);
  }

  /** A copy marked as answered at a continue-as-new boundary. */
  public RunResult markContinued() {
    return new RunResult(
        sessionId,
        run,
        status,
        finishReason,
        text,
        output,
        steps,
        usage,
        toolCalls,
        approval,
        error,
        checkpointStep,
        messageCount,
        messages,
        Boolean.TRUE);
  }
}
