package io.durableagents.tools;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Looks at every tool call a worker executes, before and after the tool's handler: it may refuse
 * the call with a reason the model sees, rewrite its arguments, or replace (e.g. redact) its result
 * before it is recorded. Register one for every agent with {@code
 * AgentsPluginOptions.Builder#addToolHook} or for one agent with {@code Agent.Builder#addToolHook}.
 *
 * <p>Hooks run inside the tool's activity, once the model's arguments passed the tool's schema:
 * what they decide is part of the call's recorded result, so it is never decided again when the
 * workflow replays, and the checkpoint history shows which hook changed what. They run once per
 * executed call, including the calls a resumed run executes first (an approved call, a call left
 * without a result); a call that is not executed (unknown tool, invalid arguments, rejected
 * approval) meets no hook. An attempt the tool's retry policy repeats runs them again.
 *
 * <p>The plugin's hooks run before the agent's, each in the order registered. The first denial wins
 * and no later hook runs; rewritten arguments go to the next hook, and are checked against the
 * tool's schema again before the handler gets them. {@code afterCall} hooks chain the same way on
 * the result. A hook that throws, or takes longer than {@code
 * AgentsPluginOptions.Builder#setToolHookTimeout}, gives the call the error result {@code
 * hook_failed} or {@code hook_timeout} naming it, and the run goes on; when that happens after the
 * handler ran, its result is withheld, so a failing redaction never leaks what it should have
 * removed.
 *
 * <p>Hooks are called from the activity's threads, possibly for several calls at once: keep them
 * thread-safe and quick, and do no work a replay would need to repeat.
 *
 * <pre>{@code
 * ToolHook noRefunds = new ToolHook() {
 *   @Override
 *   public BeforeCallDecision beforeCall(ToolHookCall call) {
 *     return call.toolName().equals("refund")
 *         ? BeforeCallDecision.deny("Refunds go through a human; tell the customer so.")
 *         : BeforeCallDecision.allow();
 *   }
 * };
 * ToolHook hideCards = new ToolHook() {
 *   @Override
 *   public AfterCallDecision afterCall(ToolHookCall call, JsonNode result) {
 *     if (!result.has("cardNumber")) {
 *       return AfterCallDecision.keep();
 *     }
 *     ObjectNode redacted = result.deepCopy();
 *     redacted.put("cardNumber", "[redacted]");
 *     return AfterCallDecision.replace(redacted);
 *   }
 * };
 * }</pre>
 */
public interface ToolHook {

  /**
   * The hook's name in the recorded results and error results (default: the class's simple name, or
   * its full name for an anonymous class).
   */
  default String name() {
    String simple = getClass().getSimpleName();
    return simple.isEmpty() ? getClass().getName() : simple;
  }

  /**
   * Decides on a call before its handler runs (default: allow). {@code call} carries the arguments
   * as the hooks before this one left them.
   *
   * @throws Exception any failure, which gives the call the error result {@code hook_failed}
   */
  default BeforeCallDecision beforeCall(ToolHookCall call) throws Exception {
    return BeforeCallDecision.allow();
  }

  /**
   * Decides on a call's result before it is recorded (default: keep). {@code call} carries the
   * arguments the handler ran with; {@code result} is the handler's result as JSON, as the hooks
   * before this one left it.
   *
   * @throws Exception any failure, which gives the call the error result {@code hook_failed} in
   *     place of the handler's result
   */
  default AfterCallDecision afterCall(ToolHookCall call, JsonNode result) throws Exception {
    return AfterCallDecision.keep();
  }
}
