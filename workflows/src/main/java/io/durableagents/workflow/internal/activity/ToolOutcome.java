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
 * made them; the workflow applies them when it records the result.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ToolOutcome(
    @JsonProperty("result") JsonNode result,
    @JsonProperty("error") boolean error,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonProperty("stateUpdates")
        List<JsonNode> stateUpdates) {

  public ToolOutcome {
    stateUpdates = stateUpdates == null ? List.of() : List.copyOf(stateUpdates);
  }

  public ToolOutcome(JsonNode result, boolean error) {
    this(result, error, List.of());
  }
}
