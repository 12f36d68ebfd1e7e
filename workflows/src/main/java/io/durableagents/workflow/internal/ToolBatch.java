package io.durableagents.workflow.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.workflow.ErrorResults;
import io.durableagents.workflow.ToolCall;
import io.durableagents.workflow.activity.AgentSpec;
import io.durableagents.workflow.activity.ToolRequest;
import io.durableagents.workflow.activity.ToolSpec;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TemporalFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the tool calls of one assistant turn and returns exactly one result per call, in call
 * order. Calls run as one activity each, up to {@code toolConcurrency} at a time; an unknown tool
 * gets an error result without any activity.
 */
final class ToolBatch {
  private final ActivityStubs stubs;
  private final AgentSpec spec;
  private final String sessionId;
  private final int run;

  ToolBatch(ActivityStubs stubs, AgentSpec spec, String sessionId, int run) {
    this.stubs = stubs;
    this.spec = spec;
    this.sessionId = sessionId;
    this.run = run;
  }

  List<JsonNode> execute(List<ToolCall> calls) {
    int concurrency = Math.max(1, spec.toolConcurrency());
    List<Promise<JsonNode>> results = new ArrayList<>(calls.size());
    List<Promise<JsonNode>> inFlight = new ArrayList<>();
    for (ToolCall call : calls) {
      while (inFlight.size() >= concurrency) {
        Promise.anyOf(inFlight).get();
        inFlight.removeIf(Promise::isCompleted);
      }
      Promise<JsonNode> result = start(call);
      results.add(result);
      if (!result.isCompleted()) {
        inFlight.add(result);
      }
    }
    List<JsonNode> ordered = new ArrayList<>(calls.size());
    for (Promise<JsonNode> result : results) {
      ordered.add(result.get());
    }
    return ordered;
  }

  private Promise<JsonNode> start(ToolCall call) {
    ToolSpec tool = spec.tool(call.name());
    if (tool == null) {
      return Workflow.newPromise(
          ErrorResults.of(ErrorResults.UNKNOWN_TOOL, "No tool named '" + call.name() + "'."));
    }
    ToolRequest request =
        new ToolRequest(sessionId, spec.name(), run, call.id(), call.name(), call.arguments());
    return Async.function(stubs.tool(tool)::executeTool, request)
        .handle(
            (outcome, failure) -> {
              if (failure == null) {
                return outcome.result();
              }
              return ErrorResults.of(ErrorResults.TOOL_FAILED, describe(failure));
            });
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
