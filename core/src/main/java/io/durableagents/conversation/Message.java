package io.durableagents.conversation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * One message of a conversation, from one {@link Role}. A {@link Role#TOOL} message holds the
 * result of exactly one call, an error result being {@code {"error": ..., "message"?: ..., "note"?:
 * ...}}; its text, when it has one, says what tool hooks did to the call (one line per hook, e.g.
 * {@code hook 'Redactor' replaced result}) and is never sent to the model. A user message may carry
 * file parts ({@link Attachment}s: artifact references, never bytes).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Message(
    @JsonProperty("role") Role role,
    @JsonProperty("text") String text,
    @JsonProperty("toolCalls") List<ToolCall> toolCalls,
    @JsonProperty("toolCallId") String toolCallId,
    @JsonProperty("toolName") String toolName,
    @JsonProperty("result") JsonNode result,
    @JsonProperty("attachments") List<Attachment> attachments) {

  /** A message with immutable copies of its tool calls and attachments (none for null). */
  public Message {
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    attachments = attachments == null ? List.of() : List.copyOf(attachments);
  }

  /** A message without attachments. */
  public Message(
      Role role,
      String text,
      List<ToolCall> toolCalls,
      String toolCallId,
      String toolName,
      JsonNode result) {
    this(role, text, toolCalls, toolCallId, toolName, result, List.of());
  }

  /** A user message of {@code text}. */
  public static Message user(String text) {
    return new Message(Role.USER, text, null, null, null, null);
  }

  /** An assistant message: its text (may be null) and the tools it calls (may be null). */
  public static Message assistant(String text, List<ToolCall> toolCalls) {
    return new Message(Role.ASSISTANT, text, toolCalls, null, null, null);
  }

  /** The result of {@code call}, naming the call's id and tool. */
  public static Message toolResult(ToolCall call, JsonNode result) {
    return toolResult(call, result, null);
  }

  /**
   * The result of {@code call}, naming the call's id and tool, with {@code hookNote}: what tool
   * hooks did to the call, or null when they did nothing.
   */
  public static Message toolResult(ToolCall call, JsonNode result, String hookNote) {
    return new Message(Role.TOOL, hookNote, null, call.id(), call.name(), result);
  }

  /** This message with {@code result} in place of its result (a tool result read back, or cut). */
  public Message withResult(JsonNode result) {
    return new Message(role, text, toolCalls, toolCallId, toolName, result, attachments);
  }
}
