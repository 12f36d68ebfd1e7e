package io.durableagents.activities.internal;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.durableagents.agent.CompactionPolicy;
import io.durableagents.agent.ContextOptions;
import java.util.ArrayList;
import java.util.List;

/**
 * An agent's {@link ContextOptions} as its run's definition records them: only the settings made,
 * so a definition without any has no {@code context} at all and keeps the fingerprint it had before
 * these settings existed.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
record ContextDefinition(
    @JsonProperty("contextWindow") Integer contextWindow,
    @JsonProperty("maxOutputTokens") Integer maxOutputTokens,
    @JsonProperty("compaction") List<String> compaction,
    @JsonProperty("threshold") Double threshold,
    @JsonProperty("maxResultChars") Integer maxResultChars) {

  /** The recorded settings of {@code options}; null when every one takes its default. */
  static ContextDefinition of(ContextOptions options) {
    if (options == null || options.isDefault()) {
      return null;
    }
    List<String> policies = null;
    if (options.getCompaction() != null) {
      policies = new ArrayList<>();
      for (CompactionPolicy policy : options.getCompaction()) {
        policies.add(policy.label());
      }
    }
    return new ContextDefinition(
        options.getContextWindow(),
        options.getMaxOutputTokens(),
        policies,
        options.getThreshold(),
        options.getMaxResultChars());
  }

  /** The budget of a run of {@code model} under {@code recorded} settings (null: the defaults). */
  static ContextBudget budget(ContextDefinition recorded, String model) {
    ContextDefinition settings =
        recorded == null ? new ContextDefinition(null, null, null, null, null) : recorded;
    int window =
        settings.contextWindow() != null ? settings.contextWindow() : ModelWindows.of(model);
    int maxOutput =
        settings.maxOutputTokens() != null
            ? settings.maxOutputTokens()
            : Math.min(ContextBudget.DEFAULT_MAX_OUTPUT, window / 4);
    List<CompactionPolicy> policies = new ArrayList<>();
    if (settings.compaction() == null) {
      policies.add(CompactionPolicy.CLEAR_TOOL_RESULTS);
      policies.add(CompactionPolicy.WINDOW);
    } else {
      for (String label : settings.compaction()) {
        policies.add(CompactionPolicy.ofLabel(label));
      }
    }
    return new ContextBudget(
        window,
        maxOutput,
        List.copyOf(policies),
        settings.threshold() != null ? settings.threshold() : ContextOptions.DEFAULT_THRESHOLD,
        settings.maxResultChars() == null ? 0 : settings.maxResultChars());
  }
}
