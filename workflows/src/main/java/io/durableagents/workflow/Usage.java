package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

/** Token usage: input and output tokens, summed over model turns. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Usage(
    @JsonProperty("inputTokens") long inputTokens,
    @JsonProperty("outputTokens") long outputTokens) {

  public static final Usage ZERO = new Usage(0, 0);

  public Usage plus(Usage other) {
    if (other == null) {
      return this;
    }
    return new Usage(inputTokens + other.inputTokens, outputTokens + other.outputTokens);
  }

  public long total() {
    return inputTokens + outputTokens;
  }
}
