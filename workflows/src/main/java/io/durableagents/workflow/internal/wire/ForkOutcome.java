package io.durableagents.workflow.internal.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.durableagents.workflow.SessionStatus;

/**
 * What the {@code forkPrepared} update answers: the fork's status once its transcript is prepared,
 * or why it could not be made. A refusal is an answer, not an update failure, so the worker logs it
 * as one line: nothing failed, and the fork's workflow completes without leaving a session.
 *
 * @param refusal why the fork was not made (a patch that does not apply to the entry, a limit, an
 *     entry no longer kept), or null when it was
 * @param status the fork's status once prepared, or null when refused
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ForkOutcome(
    @JsonProperty("refusal") String refusal, @JsonProperty("status") SessionStatus status) {

  public boolean isRefused() {
    return refusal != null;
  }
}
