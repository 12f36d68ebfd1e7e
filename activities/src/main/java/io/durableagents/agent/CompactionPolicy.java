package io.durableagents.agent;

import java.util.Locale;

/**
 * How a run shortens what the model sees when its request nears the model's context window (see
 * {@link ContextOptions}). Only the model's view changes: the transcript keeps every message.
 */
public enum CompactionPolicy {
  /**
   * The oldest tool results are replaced, in the model's view, by a short note that names the call
   * and says the full result is kept in the session's transcript.
   */
  CLEAR_TOOL_RESULTS("clear-tool-results"),

  /**
   * The oldest exchanges (a user message and everything up to the next one) are left out of the
   * model's view; a note at the start says how many messages were left out.
   */
  WINDOW("window");

  private final String label;

  CompactionPolicy(String label) {
    this.label = label;
  }

  /** The policy's name in agents files and step records, such as {@code clear-tool-results}. */
  public String label() {
    return label;
  }

  /**
   * The policy named {@code label} ({@code clear-tool-results} or {@code window}, any case).
   *
   * @throws IllegalArgumentException naming the policies there are
   */
  public static CompactionPolicy ofLabel(String label) {
    String wanted = label == null ? "" : label.trim().toLowerCase(Locale.ROOT);
    for (CompactionPolicy policy : values()) {
      if (policy.label.equals(wanted)) {
        return policy;
      }
    }
    throw new IllegalArgumentException(
        "Unknown compaction policy '" + label + "': use clear-tool-results or window.");
  }
}
