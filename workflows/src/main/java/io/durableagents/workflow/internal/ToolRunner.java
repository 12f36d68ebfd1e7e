package io.durableagents.workflow.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.ToolCall;
import io.durableagents.workflow.TriggerEnvelope;
import io.durableagents.workflow.internal.activity.AgentSpec;
import io.durableagents.workflow.internal.activity.CallCheck;
import io.durableagents.workflow.internal.activity.IdempotencyKeys;
import io.durableagents.workflow.internal.activity.ToolOutcome;
import io.durableagents.workflow.internal.activity.ToolRequest;
import io.durableagents.workflow.internal.activity.ToolSpec;
import io.durableagents.workflow.internal.wire.ErrorResults;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.CompletablePromise;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * Turns one tool call into its result: known up front, from the tool's activity, or from the child
 * session of a sub-agent ({@link SubAgentCall}).
 */
final class ToolRunner {
  private static final Logger log = Workflow.getLogger(ToolRunner.class);

  /**
   * From this version on a call that finds the store down is called again once it is back; before,
   * its result was {@code tool_failed}.
   */
  private static final String TOOL_STORE_WAIT_CHANGE = "tool-store-wait";

  private final ActivityStubs stubs;
  private final AgentSpec spec;
  private final String sessionId;
  private final int run;
  private final TriggerEnvelope trigger;

  /** The session's first workflow run id: the same across continue-as-new, new for a fork. */
  private final String executionId;

  /** How many tool calls of the run came before this batch. */
  private final int callsBefore;

  /** Runs the calls of sub-agents, as child sessions. */
  private final SubAgentCall subAgents;

  ToolRunner(
      ActivityStubs stubs,
      AgentSpec spec,
      String sessionId,
      int run,
      TriggerEnvelope trigger,
      int callsBefore,
      SubAgentCall subAgents) {
    this.stubs = stubs;
    this.subAgents = subAgents;
    this.spec = spec;
    this.sessionId = sessionId;
    this.run = run;
    this.trigger = trigger;
    this.executionId = Workflow.getInfo().getFirstExecutionRunId();
    this.callsBefore = callsBefore;
  }

  /**
   * The id of the approval that gates the batch's call {@code index}: from the call's place, like
   * its idempotency key, so that the pause gets the same id whatever path led to it.
   */
  String approvalId(ToolCall call, int index) {
    return IdempotencyKeys.forApproval(executionId, run, callsBefore + index, call.id());
  }

  /**
   * The result of a call that must not run: an unknown tool, or the error the worker recorded when
   * it checked the call. Null when the call runs.
   */
  JsonNode knownResult(ToolCall call, CallCheck check) {
    if (spec.tool(call.name()) == null) {
      return ErrorResults.of(ErrorResults.UNKNOWN_TOOL, "No tool named '" + call.name() + "'.");
    }
    return check.error();
  }

  /**
   * Starts the activity of the batch's call {@code index}, which sees {@code businessState};
   * failures become error results (with no state updates), never a failed run, and a store outage
   * is waited out.
   */
  Promise<ToolOutcome> run(ToolCall call, int index, JsonNode businessState) {
    ToolSpec tool = spec.tool(call.name());
    if (tool.isSubAgent()) {
      return subAgents.start(
          tool,
          call,
          IdempotencyKeys.forSubAgent(executionId, run, callsBefore + index, call.id()));
    }
    String key =
        IdempotencyKeys.forCall(sessionId, executionId, run, callsBefore + index, call.id());
    ToolRequest request =
        new ToolRequest(
            sessionId,
            spec.name(),
            run,
            call.id(),
            call.name(),
            call.arguments(),
            trigger,
            businessState,
            key,
            spec.fingerprint());
    return call(tool, request, CancellationScope.current());
  }

  /**
   * The call of the tool's activity, in the run's cancellation scope {@code runScope}. A call that
   * found the store down ({@code store_unavailable}, which spends none of the tool's attempts) is
   * called again once the store is back: an outage is never the call's result.
   */
  private Promise<ToolOutcome> call(
      ToolSpec tool, ToolRequest request, CancellationScope runScope) {
    return Async.function(stubs.tool(tool)::executeTool, request)
        .handle(
            (outcome, failure) -> {
              if (failure == null) {
                return Workflow.newPromise(outcome);
              }
              if (isCancellation(failure) || runScope.isCancelRequested()) {
                // A cancelled call that could not report how it ended (its worker died, so its
                // heartbeat timed out) did not finish either.
                return Workflow.newPromise(cancelled());
              }
              if (StoreWaits.isStoreUnavailable(failure)) {
                return afterStoreOutage(tool, request, failure, runScope);
              }
              return Workflow.newPromise(failed(failure));
            })
        .thenCompose(outcome -> outcome);
  }

  /**
   * Waits out the outage in a workflow thread of its own: this runs in a callback, outside the
   * run's cancellation scope, so the thread gets a scope that a cancel of the run cancels.
   */
  private Promise<ToolOutcome> afterStoreOutage(
      ToolSpec tool, ToolRequest request, RuntimeException failure, CancellationScope runScope) {
    CompletablePromise<ToolOutcome> result = Workflow.newPromise();
    CancellationScope waits =
        Workflow.newCancellationScope(
            () -> result.completeFrom(Async.function(() -> waitForStore(tool, request, failure))));
    waits.run();
    runScope
        .getCancellationRequest()
        .thenApply(
            reason -> {
              waits.cancel(reason);
              return reason;
            });
    return result;
  }

  /**
   * Calls again after durable timers, 1 s doubling up to a minute, like a model turn waits for the
   * store, until the call does not find the store down. Histories from before {@link
   * #TOOL_STORE_WAIT_CHANGE} gave the call {@code tool_failed}.
   */
  private ToolOutcome waitForStore(ToolSpec tool, ToolRequest request, RuntimeException failure) {
    if (Workflow.getVersion(TOOL_STORE_WAIT_CHANGE, Workflow.DEFAULT_VERSION, 1)
        == Workflow.DEFAULT_VERSION) {
      return failed(failure);
    }
    Duration wait = Duration.ZERO;
    try {
      while (true) {
        wait = StoreWaits.next(wait);
        log.warn(
            "{}: store unavailable for call {} of tool {}; calling again in {}",
            sessionId,
            request.toolCallId(),
            request.toolName(),
            wait);
        Workflow.sleep(wait);
        try {
          return stubs.tool(tool).executeTool(request);
        } catch (ActivityFailure again) {
          if (isCancellation(again)) {
            return cancelled();
          }
          if (!StoreWaits.isStoreUnavailable(again)) {
            return failed(again);
          }
        }
      }
    } catch (CanceledFailure e) {
      return cancelled();
    }
  }

  private static ToolOutcome cancelled() {
    return new ToolOutcome(ErrorResults.of(ErrorResults.CANCELLED, null), true);
  }

  private static ToolOutcome failed(RuntimeException failure) {
    return new ToolOutcome(
        ErrorResults.of(ErrorResults.TOOL_FAILED, Failures.messageOf(failure)), true);
  }

  private static boolean isCancellation(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof CanceledFailure) {
        return true;
      }
    }
    return false;
  }
}
