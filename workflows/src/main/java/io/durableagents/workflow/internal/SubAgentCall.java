package io.durableagents.workflow.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.ToolCall;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.Limits;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.activity.AgentSpec;
import io.durableagents.workflow.internal.activity.ToolOutcome;
import io.durableagents.workflow.internal.activity.ToolSpec;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.ErrorResults;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.durableagents.workflow.internal.wire.SubAgentOrigin;
import io.temporal.api.enums.v1.ParentClosePolicy;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.ChildWorkflowCancellationType;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.CompletablePromise;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;

/**
 * One call of a sub-agent: a child session workflow that runs the sub-agent on the task the model
 * gave, under the definition the parent's run recorded for it and within what is left of the parent
 * run's budgets; its run's result becomes the call's result. The child's id comes from the parent's
 * and the call's place ({@code PARENT:sub:} and 16 hex digits of the call's idempotency key), so a
 * replay, a fork or a reset never meets the child of another call.
 *
 * <p>The child outlives no parent (it is terminated with it) and is cancelled with the parent's
 * run: a cancel of the run is passed on as the child's own {@code cancel}, so the child settles its
 * run and its store rows like any cancelled session.
 */
final class SubAgentCall {
  private static final Logger log = Workflow.getLogger(SubAgentCall.class);

  /** The infix between a parent's session id and a child's suffix. */
  static final String ID_INFIX = ":sub:";

  private final Session session;
  private final AgentRun run;
  private final AgentSpec spec;

  SubAgentCall(Session session, AgentRun run, AgentSpec spec) {
    this.session = session;
    this.run = run;
    this.spec = spec;
  }

  /** The child session id of the call with key {@code callKey} of session {@code parentId}. */
  static String childId(String parentId, String callKey) {
    return parentId + ID_INFIX + callKey.replace("-", "").substring(0, 16);
  }

  /**
   * Runs {@code call} of sub-agent {@code tool}; {@code callKey} is its {@link
   * io.durableagents.workflow.internal.activity.IdempotencyKeys#forSubAgent} key.
   */
  Promise<ToolOutcome> start(ToolSpec tool, ToolCall call, String callKey) {
    // The id the session was started under, as its history records it.
    String parentId = session.start.sessionId() != null ? session.start.sessionId() : session.id();
    String childId = childId(parentId, callKey);
    List<String> agents = new ArrayList<>();
    if (session.subAgents.isSubAgent()) {
      agents.addAll(session.subAgents.origin().agents());
    }
    agents.add(spec.name());
    String refusal = refusal(tool, agents, childId);
    if (refusal != null) {
      log.warn(
          "{}: call {} of sub-agent '{}' refused: {}",
          session.id(),
          call.id(),
          tool.agent(),
          refusal);
      return Workflow.newPromise(
          new ToolOutcome(ErrorResults.of(ErrorResults.SUB_AGENT_REFUSED, refusal), true));
    }
    Workflow.getVersion(ChangeIds.SUB_AGENTS, Workflow.DEFAULT_VERSION, 1);
    long tokensLeft = run.tokensLeft(spec);
    SubAgentOrigin origin =
        new SubAgentOrigin(
            session.id(),
            call.id(),
            call.arguments().path("task").asText(""),
            agents,
            tokensLeft == Long.MAX_VALUE ? 0 : tokensLeft,
            tool.agentFingerprint());
    SessionStart start = SessionStart.subAgent(childId, tool.agent(), run.stepsLeft(), origin);
    AgentSessionWorkflow child =
        Workflow.newChildWorkflowStub(
            AgentSessionWorkflow.class,
            ChildWorkflowOptions.newBuilder()
                .setWorkflowId(childId)
                .setParentClosePolicy(ParentClosePolicy.PARENT_CLOSE_POLICY_TERMINATE)
                // The run's cancel reaches the child as its own cancel signal (below), so that it
                // settles its run; a workflow cancel would stop it mid-step.
                .setCancellationType(ChildWorkflowCancellationType.ABANDON)
                .build());
    long startedAt = Workflow.currentTimeMillis();
    CompletablePromise<ToolOutcome> outcome = Workflow.newPromise();
    CancellationScope runScope = CancellationScope.current();
    Workflow.newDetachedCancellationScope(
            () ->
                outcome.completeFrom(
                    Async.function(child::run, start)
                        .handle(
                            (result, failure) ->
                                settled(childId, result, failure)
                                    .withTimes(startedAt, Workflow.currentTimeMillis()))))
        .run();
    Promise<?> childStarted = Workflow.getWorkflowExecution(child);
    // A child that could not start says so through the call's outcome.
    childStarted.exceptionally(notStarted -> null);
    runScope
        .getCancellationRequest()
        .thenApply(
            reason -> {
              Workflow.newDetachedCancellationScope(
                      () ->
                          Async.procedure(
                                  () -> {
                                    childStarted.get();
                                    child.cancel(reason);
                                  })
                              .exceptionally(
                                  failure -> {
                                    // It never started, or ended already: nothing to cancel.
                                    log.info(
                                        "{}: cancel not passed on to {}: {}",
                                        session.id(),
                                        childId,
                                        failure.getMessage());
                                    return null;
                                  }))
                  .run();
              return reason;
            });
    return outcome;
  }

  /** Why the call may not start a child; null when it may. */
  private String refusal(ToolSpec tool, List<String> agents, String childId) {
    if (agents.contains(tool.agent())) {
      return "Sub-agent cycle: "
          + String.join(" -> ", agents)
          + " -> "
          + tool.agent()
          + ". An agent cannot hand a task to itself or to an agent above it.";
    }
    if (agents.size() > SubAgents.MAX_DEPTH) {
      return "Sub-agent depth limit: "
          + String.join(" -> ", agents)
          + " cannot hand a task on to '"
          + tool.agent()
          + "'; sub-agents nest at most "
          + SubAgents.MAX_DEPTH
          + " levels deep.";
    }
    if (childId.length() > Limits.SESSION_ID_CHARS) {
      return "Session id '"
          + session.id()
          + "' is too long for a sub-agent session id (at most "
          + Limits.SESSION_ID_CHARS
          + " characters with its suffix).";
    }
    if (run.stepsLeft() < 1 || run.tokensLeft(spec) < 1) {
      return "The run has no "
          + (run.stepsLeft() < 1 ? "steps" : "tokens")
          + " left for sub-agent '"
          + tool.agent()
          + "'.";
    }
    return null;
  }

  /** The call's result from the child's run: its answer, or why it has none. */
  private ToolOutcome settled(String childId, RunResult result, Throwable failure) {
    if (failure != null || result == null) {
      String why =
          failure == null ? "its session ended without a run" : Failures.messageOf(failure);
      log.warn("{}: sub-agent session {} failed: {}", session.id(), childId, why);
      return new ToolOutcome(
          withSession(ErrorResults.of(ErrorResults.SUB_AGENT_FAILED, why), childId), true);
    }
    run.progress().addSubAgentRun(result.steps(), result.usage());
    if (result.status() == RunStatus.CANCELLED) {
      return new ToolOutcome(
          withSession(ErrorResults.of(ErrorResults.CANCELLED, null), childId), true);
    }
    if (result.status() != RunStatus.FINISHED) {
      String message = result.error() == null ? result.finishReason() : result.error().message();
      return new ToolOutcome(
          withSession(ErrorResults.of(ErrorResults.SUB_AGENT_FAILED, message), childId), true);
    }
    ObjectNode answer = JsonNodeFactory.instance.objectNode();
    answer.put("sessionId", childId);
    answer.put("text", result.text());
    if (result.output() != null) {
      answer.set("output", result.output());
    }
    if (!FinishReason.STOP.equals(result.finishReason())) {
      answer.put("finishReason", result.finishReason());
    }
    return new ToolOutcome(answer, false);
  }

  private static JsonNode withSession(ObjectNode error, String childId) {
    error.put("sessionId", childId);
    return error;
  }
}
