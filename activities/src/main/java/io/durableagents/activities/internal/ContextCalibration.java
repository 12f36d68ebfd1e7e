package io.durableagents.activities.internal;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What this worker learned of its sessions' requests from the providers: how much the token
 * estimate under-counts (the input tokens a provider reported for a turn against the estimate of
 * what was sent), and the budget that a refusal for length showed (below the window set, or in
 * place of an unknown one). Kept per session in memory, a bounded number of sessions: a worker that
 * forgets learns again from the next report or refusal.
 */
final class ContextCalibration {
  /** The scale moves in steps of this size, so that small differences keep the view where it is. */
  private static final double STEP = 0.25;

  private static final int SESSIONS = 10_000;

  /** How a session's estimates are corrected: the factor, and a learned budget (0: none). */
  record Correction(double scale, long learnedBudget) {
    static final Correction NONE = new Correction(1.0, 0);

    /**
     * The budget a view gets: the learned one when it is smaller than (or instead of) {@code set}.
     */
    long inputBudget(long set) {
      if (learnedBudget <= 0) {
        return set;
      }
      return set <= 0 ? learnedBudget : Math.min(set, learnedBudget);
    }
  }

  private final Map<String, Correction> bySession =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Correction> eldest) {
          return size() > SESSIONS;
        }
      };

  synchronized Correction of(String sessionId) {
    return bySession.getOrDefault(sessionId, Correction.NONE);
  }

  /**
   * A provider reported {@code inputTokens} for a request estimated at {@code estimated} tokens
   * under {@code correction}: an estimate that counted fewer raises the session's scale.
   */
  synchronized void reported(
      String sessionId, Correction correction, long estimated, long inputTokens) {
    if (estimated <= 0 || inputTokens <= 0) {
      return;
    }
    double raw = estimated / correction.scale();
    double needed = Math.ceil(inputTokens / raw / STEP) * STEP;
    if (needed > correction.scale()) {
      bySession.put(sessionId, new Correction(needed, correction.learnedBudget()));
    }
  }

  /**
   * A provider refused a request estimated at {@code estimated} tokens for length: whatever the
   * agent's window says, the session's requests must stay below 90 % of that from now on.
   */
  synchronized Correction refused(String sessionId, Correction correction, long estimated) {
    long below = Math.max(1, (long) (estimated * 0.9));
    long learned =
        correction.learnedBudget() > 0 ? Math.min(correction.learnedBudget(), below) : below;
    Correction next = new Correction(correction.scale(), learned);
    bySession.put(sessionId, next);
    return next;
  }
}
