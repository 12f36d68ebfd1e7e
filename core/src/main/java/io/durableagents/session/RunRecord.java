package io.durableagents.session;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One run of a session as the projection records it: its status at its newest entry, the workflow
 * time it started and the workflow time it settled (epoch milliseconds, UTC).
 *
 * @param run the run's number (from 1)
 * @param status the run's status at its newest entry
 * @param startedAt when the run started
 * @param finishedAt when it settled (the status finished, failed or cancelled); null while it has
 *     not (in progress, awaiting approval, or resumed after a failure)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RunRecord(
    @JsonProperty("run") int run,
    @JsonProperty("status") RunStatus status,
    @JsonProperty("startedAt") long startedAt,
    @JsonProperty("finishedAt") Long finishedAt) {

  /** How long the run took in milliseconds; null while it has not settled. */
  public Long durationMs() {
    return finishedAt == null ? null : Math.max(0, finishedAt - startedAt);
  }
}
