package io.durableagents.workflow.internal.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.temporal.common.RetryOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A team's {@link RetryOptions} for an agent's model turns or a tool's calls, as the workflow
 * learns it from the recorded agent definition (plain JSON, so the history stays readable). Unset
 * fields (0, empty) keep the SDK's defaults.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record RetrySpec(
    @JsonProperty("initialIntervalMs") long initialIntervalMs,
    @JsonProperty("backoffCoefficient") double backoffCoefficient,
    @JsonProperty("maximumIntervalMs") long maximumIntervalMs,
    @JsonProperty("maximumAttempts") int maximumAttempts,
    @JsonProperty("doNotRetry") List<String> doNotRetry) {

  public RetrySpec {
    doNotRetry = doNotRetry == null ? List.of() : List.copyOf(doNotRetry);
  }

  /** {@code options} as a spec; null for null. */
  public static RetrySpec of(RetryOptions options) {
    if (options == null) {
      return null;
    }
    return new RetrySpec(
        millis(options.getInitialInterval()),
        options.getBackoffCoefficient(),
        millis(options.getMaximumInterval()),
        options.getMaximumAttempts(),
        options.getDoNotRetry() == null ? List.of() : Arrays.asList(options.getDoNotRetry()));
  }

  /** The retry options, with {@code alsoDoNotRetry} added to the failure types never retried. */
  public RetryOptions toOptions(String... alsoDoNotRetry) {
    RetryOptions.Builder builder = RetryOptions.newBuilder().setMaximumAttempts(maximumAttempts);
    if (initialIntervalMs > 0) {
      builder.setInitialInterval(Duration.ofMillis(initialIntervalMs));
    }
    if (backoffCoefficient > 0) {
      builder.setBackoffCoefficient(backoffCoefficient);
    }
    if (maximumIntervalMs > 0) {
      builder.setMaximumInterval(Duration.ofMillis(maximumIntervalMs));
    }
    List<String> types = new ArrayList<>(doNotRetry);
    types.addAll(Arrays.asList(alsoDoNotRetry));
    if (!types.isEmpty()) {
      builder.setDoNotRetry(types.toArray(new String[0]));
    }
    return builder.build();
  }

  private static long millis(Duration duration) {
    return duration == null ? 0 : duration.toMillis();
  }
}
