package io.durableagents.workflow.internal.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A run's claim on the lease of a concurrency key: run {@code run} of session {@code sessionId}
 * wants (or holds, or gives back) the lease of {@code key}. The input of the key workflow's {@code
 * acquire} update and {@code release} signal, and of the session's {@code leaseGranted} signal.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record LeaseRequest(
    @JsonProperty("key") String key,
    @JsonProperty("sessionId") String sessionId,
    @JsonProperty("run") int run) {

  /** True when {@code other} is the claim of the same run of the same session. */
  public boolean sameHolder(LeaseRequest other) {
    return other != null && sessionId.equals(other.sessionId) && run == other.run;
  }

  @Override
  public String toString() {
    return sessionId + " run " + run;
  }
}
