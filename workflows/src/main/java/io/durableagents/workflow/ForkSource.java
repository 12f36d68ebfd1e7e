package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/** Where a forked session comes from: a kept history entry of another session, and the patch. */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ForkSource(
    @JsonProperty("parentSessionId") String parentSessionId,
    @JsonProperty("parentStep") int parentStep,
    @JsonProperty("patch") ForkPatch patch) {}
