package io.durableagents.streaming;

import java.util.Objects;

/**
 * A piece of a model turn's output as it is generated: answer text or reasoning text.
 *
 * <p>The text deltas of one step, concatenated in arrival order, equal the text the step stores. A
 * model call that fails part-way and is retried by Temporal streams again from the start with a
 * higher {@code attempt}: a consumer that concatenates deltas starts over when the attempt of a
 * step goes up. Deltas are never stored and never replayed.
 *
 * @param sessionId the session (workflow id)
 * @param step the checkpoint step the model turn is saved under
 * @param attempt the activity attempt that produced the delta, from 1
 * @param kind {@link #TEXT} or {@link #REASONING}
 * @param text the new piece, never empty
 */
public record Delta(String sessionId, int step, int attempt, String kind, String text) {
  /** Answer text, part of the step's stored text. */
  public static final String TEXT = "text";

  /** Reasoning ("thinking") text: shown to watchers, not part of the stored answer. */
  public static final String REASONING = "reasoning";

  /**
   * Refuses a null session id, kind or text, and a kind other than {@link #TEXT} or {@link
   * #REASONING}.
   */
  public Delta {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(text, "text");
    if (!TEXT.equals(kind) && !REASONING.equals(kind)) {
      throw new IllegalArgumentException(
          "Delta kind must be 'text' or 'reasoning', got '" + kind + "'");
    }
  }

  /** Whether this is answer text (not reasoning). */
  public boolean isText() {
    return TEXT.equals(kind);
  }
}
