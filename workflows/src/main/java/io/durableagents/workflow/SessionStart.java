package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Input of the session workflow. {@code agent} may be null for the worker's default agent.
 * {@code maxSteps} overrides the agent's per-run budget when positive. {@code fork} is set for a
 * session forked from another session's history entry. {@code continued} is set by the session
 * itself when it continues as new. {@code continueAfterEvents} bounds the history of one workflow
 * run (default {@value #DEFAULT_CONTINUE_AFTER_EVENTS} events, well under a real server's 51,200);
 * the session also continues as new when Temporal suggests it.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SessionStart(
    @JsonProperty("sessionId") String sessionId,
    @JsonProperty("agent") String agent,
    @JsonProperty("maxSteps") Integer maxSteps,
    @JsonProperty("fork") ForkSource fork,
    @JsonProperty("continued") SessionSnapshot continued,
    @JsonProperty("continueAfterEvents") Integer continueAfterEvents) {

  public static final int DEFAULT_CONTINUE_AFTER_EVENTS = 10_000;

  public SessionStart(String sessionId, String agent, Integer maxSteps) {
    this(sessionId, agent, maxSteps, null, null, null);
  }

  public SessionStart(String sessionId, String agent, Integer maxSteps, ForkSource fork) {
    this(sessionId, agent, maxSteps, fork, null, null);
  }

  /** The input of the next run of this session after continue-as-new. */
  public SessionStart continuedWith(SessionSnapshot snapshot, String sessionAgent) {
    return new SessionStart(sessionId, sessionAgent, maxSteps, null, snapshot, continueAfterEvents);
  }

  /** The event bound of one workflow run. */
  public int eventLimit() {
    return continueAfterEvents != null && continueAfterEvents > 0
        ? continueAfterEvents
        : DEFAULT_CONTINUE_AFTER_EVENTS;
  }
}
