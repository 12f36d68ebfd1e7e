package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.workflow.internal.wire.InputChecks;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Changes applied to a history entry when forking from it, in this order: {@code messages} rewrites
 * the transcript; {@code businessState} replaces it; each {@code toolResults} entry replaces that
 * call's result in place (same position, id and tool name) or records it when the call has none;
 * {@code appendInput} is a user message sent after any calls still pending.
 *
 * <pre>{@code
 * ForkPatch patch = ForkPatch.newBuilder()
 *     .addToolResult("call_0_0", rain)
 *     .setAppendInput("And now?")
 *     .build();
 * }</pre>
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record ForkPatch(
    @JsonProperty("messages") List<Message> messages,
    @JsonProperty("businessState") JsonNode businessState,
    @JsonProperty("toolResults") List<ToolResultPatch> toolResults,
    @JsonProperty("appendInput") String appendInput) {

  /** A patch that changes nothing: the fork starts from the entry as it was. */
  public static final ForkPatch NONE = new ForkPatch(null, null, null, null);

  /** A builder of a patch that changes nothing until told what to change. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** A builder that starts from {@code patch}, to change one part of it. */
  public static Builder newBuilder(ForkPatch patch) {
    return new Builder(patch);
  }

  /** {@link #newBuilder(ForkPatch)} of this patch. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * Null lists become empty and null entries are dropped from them, so a patch decoded from JSON
   * with nulls applies instead of failing.
   */
  public ForkPatch {
    // JSON nulls in the lists are dropped rather than failing to decode (a raw start would wedge).
    messages = messages == null ? List.of() : messages.stream().filter(Objects::nonNull).toList();
    toolResults =
        toolResults == null ? List.of() : toolResults.stream().filter(Objects::nonNull).toList();
  }

  /**
   * Why the worker would refuse this patch whatever the entry, or null: an {@code appendInput} over
   * {@link Limits#INPUT_CHARS}, a business state that is not an object (or null) or over {@link
   * Limits#BUSINESS_STATE_BYTES}, a tool result without a call id or result, a message without a
   * role (JSON with an unknown role does not decode: {@link Role#fromValue} names it). Checked by
   * the client before it starts a fork, and by the fork before it prepares anything.
   */
  public String problem() {
    if (appendInput != null && appendInput.length() > Limits.INPUT_CHARS) {
      return "The appended input is "
          + appendInput.length()
          + " characters, over the limit of "
          + Limits.INPUT_CHARS
          + " per input; attach large content as an artifact instead.";
    }
    String stateProblem = businessStateProblem(businessState);
    if (stateProblem != null) {
      return stateProblem;
    }
    if (businessState != null && !businessState.isNull()) {
      int bytes = InputChecks.jsonBytes(businessState);
      if (bytes > Limits.BUSINESS_STATE_BYTES) {
        return "The businessState patch is "
            + bytes
            + " bytes of JSON, over the limit of "
            + Limits.BUSINESS_STATE_BYTES
            + ".";
      }
    }
    for (ToolResultPatch toolResult : toolResults) {
      if (toolResult.toolCallId() == null || toolResult.toolCallId().isBlank()) {
        return "A toolResults entry needs a toolCallId.";
      }
      if (toolResult.result() == null) {
        return "The toolResults entry for '"
            + InputChecks.shown(toolResult.toolCallId())
            + "' needs a result (JSON; null is written as null).";
      }
    }
    for (Message message : messages) {
      if (message.role() == null) {
        return "A messages entry has no role; roles are system, user, assistant and tool.";
      }
    }
    return null;
  }

  /**
   * Why this patch cannot apply to {@code entryTranscript} (the entry's messages), or null: each
   * tool result must name a call of the transcript it patches (the patch's {@code messages} when it
   * has any).
   */
  public String problemWith(List<Message> entryTranscript) {
    List<Message> patched = messages.isEmpty() ? entryTranscript : messages;
    Set<String> callIds = new HashSet<>();
    for (Message message : patched) {
      message.toolCalls().forEach(call -> callIds.add(call.id()));
      if (message.role() == Role.TOOL) {
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
        + businessState.getNodeType()
        + ".";
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

  /**
   * Builds a {@link ForkPatch} by name instead of by position; every part is optional and an empty
   * builder builds {@link #NONE}.
   */
  public static final class Builder {
    private final List<Message> messages = new ArrayList<>();
    private JsonNode businessState;
    private final List<ToolResultPatch> toolResults = new ArrayList<>();
    private String appendInput;

    private Builder() {}

    private Builder(ForkPatch patch) {
      Objects.requireNonNull(patch, "patch");
      messages.addAll(patch.messages());
      businessState = patch.businessState();
      toolResults.addAll(patch.toolResults());
      appendInput = patch.appendInput();
    }

    /**
     * Replaces the entry's whole transcript (the calls of the tool results then refer to it).
     * Default: the entry's transcript is kept.
     */
    public Builder setMessages(List<Message> messages) {
      this.messages.clear();
      if (messages != null) {
        this.messages.addAll(messages);
      }
      return this;
    }

    /**
     * Replaces the tools' business state with a JSON object; JSON null ({@link
     * com.fasterxml.jackson.databind.node.NullNode}) clears it. Default (null): the entry's state
     * is kept.
     */
    public Builder setBusinessState(JsonNode businessState) {
      this.businessState = businessState;
      return this;
    }

    /** Replaces all tool results set so far. Default: no call's result is changed. */
    public Builder setToolResults(List<ToolResultPatch> toolResults) {
      this.toolResults.clear();
      if (toolResults != null) {
        this.toolResults.addAll(toolResults);
      }
      return this;
    }

    /**
     * Replaces (or records) the result of call {@code toolCallId}, as if the tool had answered
     * {@code result} (JSON null is written as null).
     */
    public Builder addToolResult(String toolCallId, JsonNode result) {
      toolResults.add(new ToolResultPatch(toolCallId, result));
      return this;
    }

    /**
     * A user message sent after any calls still pending, so the fork goes on with new input.
     * Default (null): none.
     */
    public Builder setAppendInput(String appendInput) {
      this.appendInput = appendInput;
      return this;
    }

    /** The patch. */
    public ForkPatch build() {
      // The record copies the lists (dropping nulls), so the builder can go on.
      return new ForkPatch(messages, businessState, toolResults, appendInput);
    }
  }
}
