package io.durableagents.agent;

import java.util.List;
import java.util.Objects;

/**
 * What an agent's model can read in one request, and how a run stays within it. Before every model
 * turn the worker estimates the request's tokens (instructions, tool definitions, messages); when
 * the estimate passes {@link #getThreshold() threshold} of the input budget (the window less {@link
 * #getMaxOutputTokens() maxOutputTokens}), the {@link #getCompaction() compaction policies} shorten
 * the model's view, in order, to about half of the budget. The transcript keeps every message. A
 * provider's refusal for length ({@code context_exceeded}) shortens the view further and the turn
 * is sent again. See docs/context.md.
 *
 * <pre>{@code
 * Agent.newBuilder("researcher")
 *     .setModel("gpt-4o")
 *     .setContextOptions(ContextOptions.newBuilder().setContextWindow(128_000).build())
 * }</pre>
 *
 * <p>Every setting left unset takes its default: the window of the model's family when it is a
 * well-known one (else unknown: the run compacts only when the provider refuses a request), an
 * output budget of a quarter of the window up to 8,192 tokens, {@code clear-tool-results} then
 * {@code window}, a threshold of 0.8, and tool results cut in the model's view past as many
 * characters as the input budget has tokens. The settings are part of the run's definition: a
 * change is drift.
 */
public final class ContextOptions {
  /** The share of the input budget past which a run compacts, unless set. */
  public static final double DEFAULT_THRESHOLD = 0.8;

  private static final ContextOptions DEFAULT = newBuilder().build();

  private final Integer contextWindow;
  private final Integer maxOutputTokens;
  private final List<CompactionPolicy> compaction;
  private final Double threshold;
  private final Integer maxResultChars;

  private ContextOptions(Builder builder) {
    this.contextWindow = builder.contextWindow;
    this.maxOutputTokens = builder.maxOutputTokens;
    this.compaction = builder.compaction;
    this.threshold = builder.threshold;
    this.maxResultChars = builder.maxResultChars;
  }

  /** The options where every setting takes its default. */
  public static ContextOptions getDefaultInstance() {
    return DEFAULT;
  }

  /** A builder where every setting takes its default until set. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** A builder holding {@code options}' settings. */
  public static Builder newBuilder(ContextOptions options) {
    Builder builder = new Builder();
    builder.contextWindow = options.contextWindow;
    builder.maxOutputTokens = options.maxOutputTokens;
    builder.compaction = options.compaction;
    builder.threshold = options.threshold;
    builder.maxResultChars = options.maxResultChars;
    return builder;
  }

  /** The model's context window in tokens, as set; null for the model family's default. */
  public Integer getContextWindow() {
    return contextWindow;
  }

  /** The tokens kept free for the model's answer, as set; null for the default. */
  public Integer getMaxOutputTokens() {
    return maxOutputTokens;
  }

  /** The compaction policies in the order they apply, as set; null for the default. */
  public List<CompactionPolicy> getCompaction() {
    return compaction;
  }

  /** The share of the input budget past which a run compacts, as set; null for the default. */
  public Double getThreshold() {
    return threshold;
  }

  /**
   * The characters of one tool result the model sees, as set (a longer one is cut in its view with
   * a note; the transcript keeps it whole); null for the default.
   */
  public Integer getMaxResultChars() {
    return maxResultChars;
  }

  /** True when no setting is made: every one takes its default. */
  public boolean isDefault() {
    return contextWindow == null
        && maxOutputTokens == null
        && compaction == null
        && threshold == null
        && maxResultChars == null;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ContextOptions that
        && Objects.equals(contextWindow, that.contextWindow)
        && Objects.equals(maxOutputTokens, that.maxOutputTokens)
        && Objects.equals(compaction, that.compaction)
        && Objects.equals(threshold, that.threshold)
        && Objects.equals(maxResultChars, that.maxResultChars);
  }

  @Override
  public int hashCode() {
    return Objects.hash(contextWindow, maxOutputTokens, compaction, threshold, maxResultChars);
  }

  @Override
  public String toString() {
    return "ContextOptions{contextWindow="
        + contextWindow
        + ", maxOutputTokens="
        + maxOutputTokens
        + ", compaction="
        + compaction
        + ", threshold="
        + threshold
        + ", maxResultChars="
        + maxResultChars
        + "}";
  }

  /** Builds {@link ContextOptions}; each setter checks its value. */
  public static final class Builder {
    private Integer contextWindow;
    private Integer maxOutputTokens;
    private List<CompactionPolicy> compaction;
    private Double threshold;
    private Integer maxResultChars;

    private Builder() {}

    /** The model's context window in tokens (positive); unset: the model family's, if known. */
    public Builder setContextWindow(int contextWindow) {
      this.contextWindow = positive("contextWindow", contextWindow);
      return this;
    }

    /** The tokens kept free for the model's answer (positive, less than the window). */
    public Builder setMaxOutputTokens(int maxOutputTokens) {
      this.maxOutputTokens = positive("maxOutputTokens", maxOutputTokens);
      return this;
    }

    /**
     * The policies that shorten the model's view, applied in order until it fits; none: the run
     * never compacts, and a request past the window fails with {@code context_exceeded}.
     */
    public Builder setCompaction(CompactionPolicy... policies) {
      List<CompactionPolicy> list = List.of(policies);
      if (list.size() != list.stream().distinct().count()) {
        throw new IllegalArgumentException("compaction names a policy twice: " + list);
      }
      this.compaction = list;
      return this;
    }

    /** The share of the input budget past which a run compacts: above 0, at most 1. */
    public Builder setThreshold(double threshold) {
      if (!(threshold > 0 && threshold <= 1)) {
        throw new IllegalArgumentException(
            "threshold must be above 0 and at most 1, not " + threshold);
      }
      this.threshold = threshold;
      return this;
    }

    /** The characters of one tool result the model sees (positive). */
    public Builder setMaxResultChars(int maxResultChars) {
      this.maxResultChars = positive("maxResultChars", maxResultChars);
      return this;
    }

    /**
     * The options.
     *
     * @throws IllegalArgumentException when {@code maxOutputTokens} leaves nothing of the window
     */
    public ContextOptions build() {
      if (contextWindow != null && maxOutputTokens != null && maxOutputTokens >= contextWindow) {
        throw new IllegalArgumentException(
            "maxOutputTokens ("
                + maxOutputTokens
                + ") must be less than contextWindow ("
                + contextWindow
                + ")");
      }
      return new ContextOptions(this);
    }

    private static Integer positive(String setting, int value) {
      if (value <= 0) {
        throw new IllegalArgumentException(setting + " must be positive, not " + value);
      }
      return value;
    }
  }
}
