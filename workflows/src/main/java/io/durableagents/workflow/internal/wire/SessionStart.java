package io.durableagents.workflow.internal.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DatabindException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import io.durableagents.workflow.ForkSource;
import java.io.IOException;

/**
 * Input of the session workflow. {@code agent} may be null for the worker's default agent. {@code
 * maxSteps} overrides the agent's per-run budget when positive. {@code fork} is set for a session
 * forked from another session's history entry. {@code continued} is set by the session itself when
 * it continues as new. {@code resetTo} is set for a session moved back to one of its own history
 * entries by a reset. {@code subAgentOf} is set for a sub-agent session, a child workflow that runs
 * one task for a parent session and completes with its run's result. {@code continueAfterEvents}
 * bounds the history of one workflow run (default {@value #DEFAULT_CONTINUE_AFTER_EVENTS} events,
 * well under a real server's 51,200); the session also continues as new when Temporal suggests it.
 *
 * <p>A start input that is not a session start (from a client of another SDK, or a hostile one)
 * reads as the empty start instead of failing every workflow task of the new workflow for good; see
 * {@link Reader}.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonDeserialize(using = SessionStart.Reader.class)
public record SessionStart(
    @JsonProperty("sessionId") String sessionId,
    @JsonProperty("agent") String agent,
    @JsonProperty("maxSteps") Integer maxSteps,
    @JsonProperty("fork") ForkSource fork,
    @JsonProperty("continued") SessionSnapshot continued,
    @JsonProperty("continueAfterEvents") Integer continueAfterEvents,
    @JsonProperty("resetTo") Integer resetTo,
    @JsonProperty("subAgentOf") SubAgentOrigin subAgentOf) {

  public static final int DEFAULT_CONTINUE_AFTER_EVENTS = 10_000;

  public SessionStart(String sessionId, String agent, Integer maxSteps) {
    this(sessionId, agent, maxSteps, null, null, null, null, null);
  }

  public SessionStart(String sessionId, String agent, Integer maxSteps, ForkSource fork) {
    this(sessionId, agent, maxSteps, fork, null, null, null, null);
  }

  public SessionStart(
      String sessionId,
      String agent,
      Integer maxSteps,
      ForkSource fork,
      SessionSnapshot continued,
      Integer continueAfterEvents) {
    this(sessionId, agent, maxSteps, fork, continued, continueAfterEvents, null, null);
  }

  public SessionStart(
      String sessionId,
      String agent,
      Integer maxSteps,
      ForkSource fork,
      SessionSnapshot continued,
      Integer continueAfterEvents,
      Integer resetTo) {
    this(sessionId, agent, maxSteps, fork, continued, continueAfterEvents, resetTo, null);
  }

  /**
   * The start of sub-agent session {@code sessionId}, which runs {@code agent} on the task {@code
   * origin} gives it, within {@code maxSteps} model turns, then completes with its run's result.
   */
  public static SessionStart subAgent(
      String sessionId, String agent, int maxSteps, SubAgentOrigin origin) {
    return new SessionStart(sessionId, agent, maxSteps, null, null, null, null, origin);
  }

  /**
   * The start of a session's new workflow that moves it back to its history entry {@code step} (a
   * reset): the entries after it are kept, marked superseded.
   */
  public static SessionStart reset(String sessionId, int step) {
    return new SessionStart(sessionId, null, null, null, null, null, step, null);
  }

  /** The input of the next run of this session after continue-as-new. */
  public SessionStart continuedWith(SessionSnapshot snapshot, String sessionAgent) {
    return new SessionStart(
        sessionId, sessionAgent, maxSteps, null, snapshot, continueAfterEvents, null, subAgentOf);
  }

  /**
   * Reads a start input. One that does not bind (a field of the wrong type, JSON that is no object)
   * reads as the empty start, so the workflow runs with the defaults and, without an accepted first
   * send, completes at once: the id is free again. A continued session's start is the session's own
   * and is never replaced: if it does not bind, the workflow task fails until a worker that can
   * read it takes over, as for any other undecodable state.
   */
  static final class Reader extends StdDeserializer<SessionStart> {
    Reader() {
      super(SessionStart.class);
    }

    @Override
    public SessionStart deserialize(JsonParser parser, DeserializationContext context)
        throws IOException {
      JsonNode node = context.readTree(parser);
      try {
        Fields fields = context.readTreeAsValue(node, Fields.class);
        return fields == null
            ? null
            : new SessionStart(
                fields.sessionId(),
                fields.agent(),
                fields.maxSteps(),
                fields.fork(),
                fields.continued(),
                fields.continueAfterEvents(),
                fields.resetTo(),
                fields.subAgentOf());
      } catch (DatabindException e) {
        if (node.isObject() && node.hasNonNull("continued")) {
          throw e;
        }
        return new SessionStart(null, null, null);
      }
    }
  }

  /** The fields as bound by Jackson, under the same names and rules as the record's. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Fields(
      @JsonProperty("sessionId") String sessionId,
      @JsonProperty("agent") String agent,
      @JsonProperty("maxSteps") Integer maxSteps,
      @JsonProperty("fork") ForkSource fork,
      @JsonProperty("continued") SessionSnapshot continued,
      @JsonProperty("continueAfterEvents") Integer continueAfterEvents,
      @JsonProperty("resetTo") Integer resetTo,
      @JsonProperty("subAgentOf") SubAgentOrigin subAgentOf) {}

  /** The event bound of one workflow run. */
  public int eventLimit() {
    return continueAfterEvents != null && continueAfterEvents > 0
        ? continueAfterEvents
        : DEFAULT_CONTINUE_AFTER_EVENTS;
  }
}
