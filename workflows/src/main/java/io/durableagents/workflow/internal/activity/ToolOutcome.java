package io.durableagents.workflow.internal.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * The one result of a tool call. {@code error} marks a structured error result ({@code {"error":
 * ..., "message": ...}}) that goes back to the model like any other result. {@code stateUpdates}
 * are the merge patches (RFC 7386) the tool made to the session's business state, in the order it
 * made them; the workflow applies them when it records the result. {@code hooks} says what the tool
 * hooks changed (none: absent, as in results of older versions). {@code startedAt} and {@code
 * finishedAt} are the worker's wall-clock times around the call (epoch milliseconds; absent where
 * no worker ran it, and in results of older versions).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ToolOutcome(
    @JsonProperty("result") JsonNode result,
    @JsonProperty("error") boolean error,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonProperty("stateUpdates")
        List<JsonNode> stateUpdates,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonProperty("hooks") List<HookRecord> hooks,
    @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("startedAt") Long startedAt,
    @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("finishedAt") Long finishedAt) {

  public ToolOutcome {
    stateUpdates = stateUpdates == null ? List.of() : List.copyOf(stateUpdates);
    hooks = hooks == null ? List.of() : List.copyOf(hooks);
  }

  public ToolOutcome(
      JsonNode result, boolean error, List<JsonNode> stateUpdates, List<HookRecord> hooks) {
    this(result, error, stateUpdates, hooks, null, null);
  }

  public ToolOutcome(JsonNode result, boolean error, List<JsonNode> stateUpdates) {
    this(result, error, stateUpdates, List.of());
  }

  public ToolOutcome(JsonNode result, boolean error) {
    this(result, error, List.of());
  }

  /** This outcome, recording what the hooks did. */
  public ToolOutcome withHooks(List<HookRecord> hooks) {
    return new ToolOutcome(result, error, stateUpdates, hooks, startedAt, finishedAt);
  }

  /** This outcome, timed: the call ran from {@code startedAt} to {@code finishedAt}. */
  public ToolOutcome withTimes(long startedAt, long finishedAt) {
    return new ToolOutcome(result, error, stateUpdates, hooks, startedAt, finishedAt);
  }

  /** The error code of a structured error result ({@code result.error}); null for a value. */
  public String errorCode() {
    return error && result != null && result.hasNonNull("error")
        ? result.get("error").asText()
        : null;
  }

  /**
   * What the hooks did, one line each, for the call's tool message in the history; null when they
   * changed nothing.
   */
  public String hookNote() {
    if (hooks.isEmpty()) {
      return null;
    }
    StringBuilder note = new StringBuilder();
    for (HookRecord hook : hooks) {
      if (note.length() > 0) {
        note.append('\n');
      }
      note.append(hook.describe());
    }
    return note.toString();
  }
}
