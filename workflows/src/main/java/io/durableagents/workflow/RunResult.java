package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * The outcome of one run: the work one message triggered. {@code steps}, {@code usage} and
 * {@code toolCalls} count this run only; {@code messages} is the whole conversation.
 *
 * <p>{@code continued} is true on an answer given because the session continued as new while
 * the caller waited: the run goes on in the session's next workflow run, and the caller sends empty
 * input to attach to it again ({@code AgentClient} does this transparently).
 *
 * <p>The workflow returns it without {@code messages} (the transcript lives in the store, never in
 * Temporal payloads); {@code AgentClient} fills them in from the projection.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RunResult(
    @JsonProperty("sessionId") String sessionId,
    @JsonProperty("run") int run,
    @JsonProperty("status") String status,
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

  /** A result without the {@code continued} mark. */
  public RunResult(
      String sessionId,
      int run,
      String status,
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
    this(sessionId, run, status, finishReason, text, output, steps, usage, toolCalls, approval,
        error, checkpointStep, messageCount, messages, null);
  }

  public RunResult {
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    usage = usage == null ? Usage.ZERO : usage;
  }

  /** A copy carrying the whole conversation. */
  public RunResult withMessages(List<Message> conversation) {
    return new RunResult(
        sessionId, run, status, finishReason, text, output, steps, usage, toolCalls, approval, error,
        checkpointStep, messageCount, conversation, continued);
  }

  /** True when the caller should attach again: the session continued as new meanwhile. */
  public boolean isContinued() {
    return Boolean.TRUE.equals(continued);
  }

  /** A copy marked as answered at a continue-as-new boundary. */
  public RunResult markContinued() {
    return new RunResult(
        sessionId, run, status, finishReason, text, output, steps, usage, toolCalls, approval, error,
        checkpointStep, messageCount, messages, Boolean.TRUE);
  }
}
