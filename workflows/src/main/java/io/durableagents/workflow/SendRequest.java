package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Input of the {@code send} update. An empty or null {@code input} starts no turn: it attaches to
 * the run in progress, or returns the last run's result.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SendRequest(@JsonProperty("input") String input) {

  public boolean isEmpty() {
    return input == null || input.isEmpty();
  }
}
