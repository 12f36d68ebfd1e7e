package io.durableagents.workflow.internal.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What the workflow needs to know of a tool to schedule it: its name and how its activity is run
 * ({@code local}: as a local activity; {@code taskQueue}: another queue than the workflow's, null
 * for the workflow's; {@code retry}: the tool's own retry options, null for the default policy of
 * {@code maxAttempts}). Schemas and code stay on the worker side.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ToolSpec(
    @JsonProperty("name") String name,
    @JsonProperty("startToCloseTimeoutMs") long startToCloseTimeoutMs,
    @JsonProperty("maxAttempts") int maxAttempts,
    @JsonProperty("local") boolean local,
    @JsonProperty("taskQueue") String taskQueue,
    @JsonProperty("retry") RetrySpec retry) {

  public ToolSpec(String name, long startToCloseTimeoutMs, int maxAttempts) {
    this(name, startToCloseTimeoutMs, maxAttempts, false, null, null);
  }
}
