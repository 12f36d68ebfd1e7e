package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * A tool call of a run together with its one recorded result. {@code omitted} marks a call listed
 * without its arguments and result: the run's result carries them only up to {@link
 * RunResult#MAX_TOOL_CALL_CHARS}, and the transcript has them all ({@link RunResult#withMessages}
 * puts them back).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ToolCallRecord(
    @JsonProperty("id") String id,
    @JsonProperty("name") String name,
    @JsonProperty("arguments") JsonNode arguments,
    @JsonProperty("result") JsonNode result,
    @JsonProperty("omitted") Boolean omitted) {

  /** A call listed with its arguments and result (not {@code omitted}). */
  public ToolCallRecord(String id, String name, JsonNode arguments, JsonNode result) {
    this(id, name, arguments, result, null);
  }

  /** The call without its arguments and result, which only the transcript holds. */
  public static ToolCallRecord omitted(String id, String name) {
    return new ToolCallRecord(id, name, null, null, Boolean.TRUE);
  }

  /** True when the arguments and result were left out (see {@link RunResult#withMessages}). */
  public boolean isOmitted() {
    return Boolean.TRUE.equals(omitted);
  }
}
