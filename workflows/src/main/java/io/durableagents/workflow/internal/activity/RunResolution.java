package io.durableagents.workflow.internal.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.workflow.TriggerEnvelope;

/**
 * What a run asks of the worker when it starts: the definition of {@code agent} (null: the worker's
 * default) for the run configuration {@code runConfig} (null: none). A run that continues another's
 * (a fork) names the definition that run recorded, {@code fingerprint}, and keeps it when the
 * worker still has it; null for a new run. {@code trigger}: the envelope that started the run, for
 * an agent that computes the run's concurrency key from it (null: none, or not asked for).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RunResolution(
    @JsonProperty("agent") String agent,
    @JsonProperty("runConfig") JsonNode runConfig,
    @JsonProperty("fingerprint") String fingerprint,
    @JsonProperty("trigger") TriggerEnvelope trigger) {

  public RunResolution(String agent, JsonNode runConfig, String fingerprint) {
    this(agent, runConfig, fingerprint, null);
  }
}
