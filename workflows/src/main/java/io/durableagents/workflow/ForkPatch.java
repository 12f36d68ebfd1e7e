package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Changes applied to a history entry when forking from it, in this order: {@code messages}
 * rewrites the transcript; {@code businessState} replaces it; each {@code toolResults} entry
 * replaces that call's result in place (same position, id and tool name) or records it when the
 * call has none; {@code appendInput} is a user message sent after any calls still pending.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record ForkPatch(
    @JsonProperty("messages") List<Message> messages,
    @JsonProperty("businessState") JsonNode businessState,
    @JsonProperty("toolResults") List<ToolResultPatch> toolResults,
    @JsonProperty("appendInput") String appendInput) {

  public static final ForkPatch NONE = new ForkPatch(null, null, null, null);

  public ForkPatch {
    // JSON nulls in the lists are dropped rather than failing to decode (a raw start would wedge).
    messages = messages == null ? List.of() : messages.stream().filter(Objects::nonNull).toList();
    toolResults = toolResults == null ? List.of() : toolResults.stream().filter(Objects::nonNull).toList();
  }

  /**
   * Why the worker would refuse this patch whatever the entry, or null: an {@code appendInput}
   * over {@link Limits#INPUT_CHARS}, a business state that is not an object (or null) or over
   * {@link Limits#BUSINESS_STATE_BYTES}, a tool result without a call id or result, a message
   * without a known role. Checked by the client before it starts a fork, and by the fork before
   * it prepares anything.
   */
  public String problem() {
    if (appendInput != null && appendInput.length() > Limits.INPUT_CHARS) {
      return "The appended input is " + appendInput.length() + " characters, over the limit of "
          + Limits.INPUT_CHARS + " per input; attach large content as an artifact instead.";
    }
    String stateProblem = businessStateProblem(businessState);
    if (stateProblem != null) {
      return stateProblem;
    }
    if (businessState != null && !businessState.isNull()) {
      int bytes = InputChecks.jsonBytes(businessState);
      if (bytes > Limits.BUSINESS_STATE_BYTES) {
        return "The businessState patch is " + bytes + " bytes of JSON, over the limit of "
            + Limits.BUSINESS_STATE_BYTES + ".";
      }
    }
    for (ToolResultPatch toolResult : toolResults) {
      if (toolResult.toolCallId() == null || toolResult.toolCallId().isBlank()) {
        return "A toolResults entry needs a toolCallId.";
      }
      if (toolResult.result() == null) {
        return "The toolResults entry for '" + InputChecks.shown(toolResult.toolCallId())
            + "' needs a result (JSON; null is written as null).";
      }
    }
    for (Message message : messages) {
      if (!Set.of(Message.SYSTEM, Message.USER, Message.ASSISTANT, Message.TOOL).contains(message.role())) {
        return "A messages entry has role '" + InputChecks.shown(message.role())
            + "'; roles are system, user, assistant and tool.";
      }
    }
    return null;
  }

  /**
   * Why this patch cannot apply to {@code entryTranscript} (the entry's messages), or null: each
   * tool result must name a call of the transcript it patches (the patch's {@code messages} when
   * it has any).
   */
  public String problemWith(List<Message> entryTranscript) {
    List<Message> patched = messages.isEmpty() ? entryTranscript : messages;
    Set<String> callIds = new HashSet<>();
    for (Message message : patched) {
      message.toolCalls().forEach(call -> callIds.add(call.id()));
      if (Message.TOOL.equals(message.role())) {
        callIds.add(message.toolCallId());
      }
    }
    for (ToolResultPatch toolResult : toolResults) {
      if (!callIds.contains(toolResult.toolCallId())) {
        return unknownCall(toolResult.toolCallId());
      }
    }
    return null;
  }

  /** The reason for a tool result whose call the transcript does not have. */
  public static String unknownCall(String toolCallId) {
    return "The transcript has no tool call '" + InputChecks.shown(toolCallId) + "' to patch.";
  }

  /**
   * Why {@code businessState} cannot be a {@code businessState} patch, or null when it can: a JSON
   * object replaces the session's business state, JSON null clears it.
   */
  public static String businessStateProblem(JsonNode businessState) {
    if (businessState == null || businessState.isObject() || businessState.isNull()) {
      return null;
    }
    return "A businessState patch replaces the state with a JSON object (or null to clear it), not "
        + businessState.getNodeType() + ".";
  }

  /** A one-line description for lineage records. */
  public String summary() {
    StringBuilder out = new StringBuilder();
    if (!messages.isEmpty()) {
      out.append("messages(").append(messages.size()).append(") ");
    }
    if (businessState != null) {
      out.append("businessState ");
    }
    for (ToolResultPatch patch : toolResults) {
      out.append("toolResult(").append(patch.toolCallId()).append(") ");
    }
    if (appendInput != null && !appendInput.isEmpty()) {
      out.append("appendInput ");
    }
    return out.length() == 0 ? "none" : out.toString().trim();
  }

  /** Replaces (or records) the result of one tool call. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record ToolResultPatch(
      @JsonProperty("toolCallId") String toolCallId, @JsonProperty("result") JsonNode result) {}
}
