package io.durableagents.activities.internal;

import io.durableagents.agent.CompactionPolicy;
import java.util.List;

/**
 * What one model request of a run may hold: the {@code window} (0: unknown) less the tokens kept
 * for the answer, the share of it past which the run compacts, the policies that compact, and the
 * characters of one tool result the model sees ({@code maxResultChars}; 0: as many as the input
 * budget has tokens, none when the window is unknown).
 */
record ContextBudget(
    int window,
    int maxOutputTokens,
    List<CompactionPolicy> policies,
    double threshold,
    int maxResultChars) {

  /** The largest output budget a run gets unless its agent sets one. */
  static final int DEFAULT_MAX_OUTPUT = 8_192;

  /** The share of the input budget a compaction brings the view down to. */
  static final double TARGET = 0.5;

  /** The tokens the request itself may take; 0 when the window is unknown. */
  long inputBudget() {
    return window <= 0 ? 0 : window - (long) maxOutputTokens;
  }

  /** The characters of one tool result the model sees; {@link Integer#MAX_VALUE}: no limit. */
  int resultChars() {
    if (maxResultChars > 0) {
      return maxResultChars;
    }
    long budget = inputBudget();
    return budget <= 0 ? Integer.MAX_VALUE : (int) Math.min(Integer.MAX_VALUE, budget);
  }
}
