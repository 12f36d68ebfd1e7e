package io.durableagents.store;

import java.util.Map;
import java.util.Objects;

/**
 * Options of a store: how many checkpoint history entries it keeps per session. Immutable; build
 * with {@link #newBuilder()}.
 *
 * <pre>{@code
 * AgentStore store = AgentStores.open("jdbc:postgresql://db/agents?user=agents",
 *     StoreOptions.newBuilder().setHistoryLimit(20).build());
 * }</pre>
 */
public final class StoreOptions {
  /** History entries kept per session unless configured otherwise. */
  public static final int DEFAULT_HISTORY_LIMIT = 50;

  /** The environment variable the worker reads the history limit from. */
  public static final String HISTORY_LIMIT_VARIABLE = "AGENTS_HISTORY_LIMIT";

  private static final StoreOptions DEFAULT = newBuilder().build();

  private final int historyLimit;

  private StoreOptions(Builder builder) {
    this.historyLimit = builder.historyLimit;
  }

  /** A builder with every option at its default. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** A builder that starts from {@code options}. */
  public static Builder newBuilder(StoreOptions options) {
    return new Builder().setHistoryLimit(Objects.requireNonNull(options, "options").historyLimit);
  }

  /** A builder that starts from these options. */
  public Builder toBuilder() {
    return newBuilder(this);
  }

  /** History limit {@value #DEFAULT_HISTORY_LIMIT}. */
  public static StoreOptions getDefaultInstance() {
    return DEFAULT;
  }

  /**
   * The defaults, with the history limit from {@value #HISTORY_LIMIT_VARIABLE} when it is set.
   *
   * @throws IllegalArgumentException if the variable is not a non-negative integer
   */
  public static StoreOptions fromEnvironment(Map<String, String> env) {
    String value = env.get(HISTORY_LIMIT_VARIABLE);
    if (value == null || value.isBlank()) {
      return DEFAULT;
    }
    return newBuilder().setHistoryLimit(parseHistoryLimit(value, HISTORY_LIMIT_VARIABLE)).build();
  }

  /**
   * Parses a history limit given as text (a CLI option or an environment variable).
   *
   * @param source where the text came from, for the error message
   * @throws IllegalArgumentException if it is not a non-negative integer
   */
  public static int parseHistoryLimit(String value, String source) {
    try {
      int limit = Integer.parseInt(value.strip());
      if (limit >= 0) {
        return limit;
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw new IllegalArgumentException(
        source + " must be a whole number of history entries (0 keeps none), got '" + value + "'");
  }

  /**
   * How many history entries (the newest steps) a session keeps: after each save, older entries of
   * that session are deleted. 0 keeps none. The transcript is never trimmed by this limit.
   */
  public int getHistoryLimit() {
    return historyLimit;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof StoreOptions that && historyLimit == that.historyLimit;
  }

  @Override
  public int hashCode() {
    return Integer.hashCode(historyLimit);
  }

  @Override
  public String toString() {
    return "StoreOptions{historyLimit=" + historyLimit + "}";
  }

  /** Builds {@link StoreOptions}. */
  public static final class Builder {
    private int historyLimit = DEFAULT_HISTORY_LIMIT;

    private Builder() {}

    /** History entries kept per session (default {@value #DEFAULT_HISTORY_LIMIT}); 0 keeps none. */
    public Builder setHistoryLimit(int historyLimit) {
      this.historyLimit = historyLimit;
      return this;
    }

    /** The options. */
    public StoreOptions build() {
      if (historyLimit < 0) {
        throw new IllegalArgumentException(
            "historyLimit must not be negative (0 keeps no history), was " + historyLimit);
      }
      return new StoreOptions(this);
    }
  }
}
