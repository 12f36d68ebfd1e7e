package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

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
    messages = messages == null ? List.of() : List.copyOf(messages);
    toolResults = toolResults == null ? List.of() : List.copyOf(toolResults);
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
