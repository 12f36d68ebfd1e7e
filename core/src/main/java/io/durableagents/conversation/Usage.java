package io.durableagents.conversation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Token usage: input and output tokens, summed over model turns. Sums never go negative and never
 * wrap: a negative count adds nothing and a sum past {@code Long.MAX_VALUE} stays there, so a bad
 * count that got in (the model activity refuses them) cannot defeat a {@code maxTokens} budget.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Usage(
    @JsonProperty("inputTokens") long inputTokens,
    @JsonProperty("outputTokens") long outputTokens) {

  /** No tokens. */
  public static final Usage ZERO = new Usage(0, 0);

  /** The sum of both usages; a null {@code other} adds nothing. */
  public Usage plus(Usage other) {
    if (other == null) {
      return this;
    }
    return new Usage(add(inputTokens, other.inputTokens), add(outputTokens, other.outputTokens));
  }

  /** Input and output tokens together, saturating at {@code Long.MAX_VALUE}. */
  public long total() {
    return add(inputTokens, outputTokens);
  }

  /** {@code a + b}, negative terms counted as 0, saturating at {@code Long.MAX_VALUE}. */
  private static long add(long a, long b) {
    long sum = Math.max(0, a) + Math.max(0, b);
    return sum < 0 ? Long.MAX_VALUE : sum;
  }
}
