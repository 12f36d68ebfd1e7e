package io.durableagents.workflow.internal.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The details of a failed model turn's {@code ApplicationFailure}: what the model streamed before
 * the failure ({@code partialText}, null: nothing) and the worker's wall-clock times around the
 * provider call (epoch milliseconds), so the failed step is recorded with them.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ModelFailureDetails(
    @JsonProperty("partialText") String partialText,
    @JsonProperty("startedAt") Long startedAt,
    @JsonProperty("finishedAt") Long finishedAt) {}
