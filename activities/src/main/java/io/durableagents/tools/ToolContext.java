package io.durableagents.tools;

import io.durableagents.workflow.TriggerEnvelope;

/**
 * What a tool knows about the call it serves. Tools are at-least-once: a call in flight when a
 * worker dies runs again, so use {@link #toolCallId()} as the idempotency key of side effects.
 *
 * @param toolCallId stable id of this call, the same on every attempt
 * @param sessionId the session the call belongs to
 * @param agent the agent's name
 * @param run the run number within the session
 * @param attempt the activity attempt, starting at 1
 * @param trigger the envelope that started the run (id, keys, thread, payload...), or null
 * @param businessState the session's business state: read it, and update it with merge patches
 */
public record ToolContext(
    String toolCallId,
    String sessionId,
    String agent,
    int run,
    int attempt,
    TriggerEnvelope trigger,
    BusinessState businessState) {

  public ToolContext {
    businessState = businessState == null ? BusinessState.empty() : businessState;
  }

  public ToolContext(String toolCallId, String sessionId, String agent, int run, int attempt, TriggerEnvelope trigger) {
    this(toolCallId, sessionId, agent, run, attempt, trigger, null);
  }

  public ToolContext(String toolCallId, String sessionId, String agent, int run, int attempt) {
    this(toolCallId, sessionId, agent, run, attempt, null, null);
  }
}
