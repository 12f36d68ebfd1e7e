package io.durableagents.workflow.internal.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A model turn whose view of the conversation was shortened to fit the model's context window (see
 * docs/context.md): the policies that did it ({@code clear-tool-results}, {@code window}), the tool
 * results cleared and the messages left out of the view in all, the estimated tokens of the whole
 * conversation and of the view sent, and why: {@code threshold} (the view passed its share of the
 * window) or {@code context_exceeded} (the provider refused a longer one).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ContextCompaction(
    @JsonProperty("policies") String policies,
    @JsonProperty("clearedResults") int clearedResults,
    @JsonProperty("leftOutMessages") int leftOutMessages,
    @JsonProperty("tokensBefore") long tokensBefore,
    @JsonProperty("tokensAfter") long tokensAfter,
    @JsonProperty("reason") String reason) {

  public static final String THRESHOLD = "threshold";
  public static final String CONTEXT_EXCEEDED = "context_exceeded";

  /** How a step record shows it, e.g. "cleared 12 tool results; ~41,200 → 19,800 tokens". */
  public String summary() {
    StringBuilder text = new StringBuilder();
    if (clearedResults > 0) {
      text.append("cleared ").append(clearedResults).append(" tool results");
    }
    if (leftOutMessages > 0) {
      text.append(text.isEmpty() ? "" : ", ")
          .append("left out ")
          .append(leftOutMessages)
          .append(" messages");
    }
    return text.append(text.isEmpty() ? "" : "; ")
        .append(String.format("~%,d → %,d tokens", tokensBefore, tokensAfter))
        .append(CONTEXT_EXCEEDED.equals(reason) ? " (after the provider refused a longer one)" : "")
        .toString();
  }
}
