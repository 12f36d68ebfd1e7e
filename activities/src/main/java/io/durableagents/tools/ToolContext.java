package io.durableagents.tools;

import io.durableagents.workflow.TriggerEnvelope;
import io.durableagents.workflow.internal.activity.IdempotencyKeys;

/**
 * What a tool knows about the call it serves. Tools are at-least-once: a call in flight when a
 * worker dies runs again, so give side effects {@link #idempotencyKey()}, never {@link
 * #toolCallId()}: the model's call ids repeat across sessions and forks.
 *
 * @param toolCallId the model's id of this call: unique within the session's conversation only (it
 *     pairs the call with its result), the same on every attempt
 * @param sessionId the session the call belongs to
 * @param agent the agent's name
 * @param run the run number within the session
 * @param attempt the activity attempt, starting at 1
 * @param trigger the envelope that started the run (id, keys, thread, payload...), or null
 * @param businessState the session's business state: read it, and update it with merge patches
 * @param idempotencyKey the key for this call's side effects: a UUID unique across sessions and
 *     forks, the same on every attempt, after a worker restart and across continue-as-new. A fork
 *     that runs a call again (one its source had not answered) gets a new key: the fork is a new
 *     session, and its effects are new effects. Derived from the session, run and call id when a
 *     context is built without one (in a tool's own tests).
 */
public record ToolContext(
    String toolCallId,
    String sessionId,
    String agent,
    int run,
    int attempt,
    TriggerEnvelope trigger,
    BusinessState businessState,
    String idempotencyKey) {

  public ToolContext {
    businessState = businessState == null ? BusinessState.empty() : businessState;
    if (idempotencyKey == null || idempotencyKey.isBlank()) {
      idempotencyKey = IdempotencyKeys.forCall(sessionId, null, run, -1, toolCallId);
    }
  }

  public ToolContext(
      String toolCallId,
      String sessionId,
      String agent,
      int run,
      int attempt,
      TriggerEnvelope trigger,
      BusinessState businessState) {
    this(toolCallId, sessionId, agent, run, attempt, trigger, businessState, null);
  }

  public ToolContext(
      String toolCallId,
      String sessionId,
      String agent,
      int run,
      int attempt,
      TriggerEnvelope trigger) {
    this(toolCallId, sessionId, agent, run, attempt, trigger, null, null);
  }

  public ToolContext(String toolCallId, String sessionId, String agent, int run, int attempt) {
    this(toolCallId, sessionId, agent, run, attempt, null, null, null);
  }
}
