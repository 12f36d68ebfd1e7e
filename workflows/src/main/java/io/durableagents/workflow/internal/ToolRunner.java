package io.durableagents.workflow.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.workflow.ErrorResults;
import io.durableagents.workflow.ToolCall;
import io.durableagents.workflow.TriggerEnvelope;
import io.durableagents.workflow.internal.activity.AgentSpec;
import io.durableagents.workflow.internal.activity.CallCheck;
import io.durableagents.workflow.internal.activity.IdempotencyKeys;
import io.durableagents.workflow.internal.activity.ToolOutcome;
import io.durableagents.workflow.internal.activity.ToolRequest;
import io.durableagents.workflow.internal.activity.ToolSpec;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.failure.TemporalFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;

/** Turns one tool call into its result: known up front, or from the tool's activity. */
final class ToolRunner {
  private final ActivityStubs stubs;
  private final AgentSpec spec;
  private final String sessionId;
  private final int run;
  private final TriggerEnvelope trigger;

  /** The session's first workflow run id: the same across continue-as-new, new for a fork. */
  private final String executionId;

  /** How many tool calls of the run came before this batch. */
  private final int callsBefore;

  ToolRunner(
      ActivityStubs stubs,
      AgentSpec spec,
      String sessionId,
      int run,
      TriggerEnvelope trigger,
      int callsBefore) {
    this.stubs = stubs;
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
   * failures become error results (with no state updates), never a failed run.
   */
  Promise<ToolOutcome> run(ToolCall call, int index, JsonNode businessState) {
    ToolSpec tool = spec.tool(call.name());
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
            IdempotencyKeys.forCall(sessionId, executionId, run, callsBefore + index, call.id()),
            spec.fingerprint());
    return Async.function(stubs.tool(tool)::executeTool, request)
        .handle(
            (outcome, failure) -> {
              if (failure == null) {
                return outcome;
              }
              if (isCancellation(failure)) {
                return new ToolOutcome(ErrorResults.of(ErrorResults.CANCELLED, null), true);
              }
              return new ToolOutcome(
                  ErrorResults.of(ErrorResults.TOOL_FAILED, describe(failure)), true);
            });
  }

  private static boolean isCancellation(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof CanceledFailure) {
        return true;
      }
    }
    return false;
  }

  private static String describe(RuntimeException failure) {
    Throwable cause = failure;
    if (failure instanceof ActivityFailure && failure.getCause() != null) {
      cause = failure.getCause();
    }
    if (cause instanceof ApplicationFailure application) {
      return application.getOriginalMessage();
    }
    if (cause instanceof TemporalFailure temporal) {
      return temporal.getOriginalMessage();
    }
    return String.valueOf(cause.getMessage());
  }
}
