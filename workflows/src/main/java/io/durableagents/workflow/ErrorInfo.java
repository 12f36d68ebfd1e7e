package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

/** Why a run failed: a stable machine-readable code and a human-readable message. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ErrorInfo(
    @JsonProperty("code") String code, @JsonProperty("message") String message) {}
