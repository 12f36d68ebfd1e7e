package io.durableagents.workflow.internal.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the worker found out about one tool call before anything runs: an error result for an
 * unknown tool or invalid arguments (the call then never executes), or whether the tool's {@code
 * needsApproval(args)} gates it. Computed in the activity that produced the calls, so the workflow
 * knows each call's path before the batch starts.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CallCheck(
    @JsonProperty("error") JsonNode error, @JsonProperty("needsApproval") boolean needsApproval) {

  public static final CallCheck RUNNABLE = new CallCheck(null, false);
}
