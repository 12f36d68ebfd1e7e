package io.durableagents.agent;

import java.util.Locale;

/**
 * What a worker does when a run resumes on it and the agent's definition (model, instructions, tool
 * declarations, budgets, run configuration) is not the one the run recorded when it started. The
 * run keeps its recorded definition in every case but {@link #ERROR}.
 *
 * <ul>
 *   <li>{@link #WARN} (default): one log line, {@code drift} recorded on the checkpoint and in the
 *       projection, and the run goes on with its recorded definition.
 *   <li>{@link #ERROR}: the run fails with {@code agent_drift}, naming what changed.
 *   <li>{@link #IGNORE}: the run goes on with its recorded definition, without a word.
 * </ul>
 */
public enum DriftPolicy {
  /** Log the drift, record it, and go on with the recorded definition. */
  WARN,
  /** Fail the run with {@code agent_drift}. */
  ERROR,
  /** Go on with the recorded definition without a word. */
  IGNORE;

  /** The policy of a configuration value ({@code warn}, {@code error}, {@code ignore}). */
  public static DriftPolicy fromValue(String value) {
    if (value != null) {
      for (DriftPolicy policy : values()) {
        if (policy.value().equals(value.trim().toLowerCase(Locale.ROOT))) {
          return policy;
        }
      }
    }
    throw new IllegalArgumentException(
        "Unknown onAgentDrift value '" + value + "'; expected one of: warn, error, ignore.");
  }

  /** The configuration value of this policy. */
  public String value() {
    return name().toLowerCase(Locale.ROOT);
  }
}
