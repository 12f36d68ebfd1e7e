package io.durableagents.activities.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.durableagents.agent.Agent;
import io.durableagents.artifacts.ArtifactStore;
import io.durableagents.artifacts.FileArtifactStore;
import io.durableagents.metrics.AgentMetrics;
import io.durableagents.store.StoreException;
import io.durableagents.tools.BusinessState;
import io.durableagents.tools.RetryableToolException;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolCancellation;
import io.durableagents.tools.ToolContext;
import io.durableagents.tracing.AgentTracer;
import io.durableagents.tracing.ToolCallTrace;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.internal.activity.IdempotencyKeys;
import io.durableagents.workflow.internal.activity.ToolActivities;
import io.durableagents.workflow.internal.activity.ToolOutcome;
import io.durableagents.workflow.internal.activity.ToolRequest;
import io.durableagents.workflow.internal.wire.ErrorResults;
import io.durableagents.workflow.internal.wire.StoredResults;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.activity.ActivityInfo;
import io.temporal.client.ActivityCanceledException;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one tool call. Unknown tools and arguments that fail the schema become error results without
 * running anything; a throwing tool becomes an error result, unless the failure is transient, in
 * which case the attempt fails and the tool's retry policy applies. The call reads nothing from the
 * store unless its run's definition is another one than the worker's (a run configuration, a
 * changed agent), which it reads once per worker; when the store is down then, the call fails with
 * {@code store_unavailable}, not retried, and the workflow calls again once it is back.
 *
 * <p>While the handler runs, {@link CallCancellation} watches for what ends the call: a cancel of
 * the run, the call's timeout, the worker's shutdown. It heartbeats a regular activity every {@link
 * #HEARTBEAT_INTERVAL} (the handler needs no code for it, and the server learns within the tool's
 * heartbeat timeout that a worker died). A cancellation interrupts the handler; one that stops gets
 * {@code cancelled}, one that finishes anyway has its real result recorded.
 */
public final class ToolActivitiesImpl implements ToolActivities {
  private static final Logger log = LoggerFactory.getLogger(ToolActivitiesImpl.class);
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /**
   * How often a running tool heartbeats, and so how soon it learns of a cancel: the plugin's
   * default cancel check interval, to which it lowers the worker's heartbeat throttling (a worker
   * with a higher throttle sends fewer). A handler quicker than the interval sends no heartbeat.
   */
  public static final Duration HEARTBEAT_INTERVAL = Duration.ofMillis(500);

  private final AgentDefinitions definitions;
  private final int maxPayloadBytes;
  private ArtifactStore artifacts = FileArtifactStore.defaultStore();
  private RunningTools running = new RunningTools();
  private ToolHooks hooks = ToolHooks.NONE;
  private AgentMetrics metrics = AgentMetrics.NONE;
  private AgentTracer tracer = AgentTracer.NONE;

  public ToolActivitiesImpl(AgentDefinitions definitions, int maxPayloadBytes) {
    this.definitions = definitions;
    this.maxPayloadBytes = maxPayloadBytes;
  }

  /** Reports each call's attempt to {@code metrics}. */
  public ToolActivitiesImpl withMetrics(AgentMetrics metrics) {
    this.metrics = metrics;
    return this;
  }

  /** Opens a span around each call's attempt with {@code tracer}. */
  public ToolActivitiesImpl withTracer(AgentTracer tracer) {
    this.tracer = tracer;
    return this;
  }

  /** Registers the running calls with {@code running}, which a worker shutdown cancels. */
  public ToolActivitiesImpl withRunningTools(RunningTools running) {
    this.running = running;
    return this;
  }

  /** Uses {@code store} for results too large for a payload (the plugin's artifact store). */
  public ToolActivitiesImpl withArtifacts(ArtifactStore store) {
    this.artifacts = store;
    return this;
  }

  /** Runs every call through {@code hooks} (the plugin's, then the agent's). */
  public ToolActivitiesImpl withHooks(ToolHooks hooks) {
    this.hooks = hooks;
    return this;
  }

  /** Runs the call; its outcome carries the wall-clock times around it, for its step record. */
  @Override
  public ToolOutcome executeTool(ToolRequest request) {
    long startedAt = System.currentTimeMillis();
    long started = System.nanoTime();
    ToolOutcome outcome;
    ToolCallTrace trace =
        tracer.toolCall(
            request.sessionId(),
            request.agent(),
            request.toolName(),
            request.toolCallId(),
            request.arguments());
    try {
      outcome = execute(request);
    } catch (RuntimeException e) {
      String type = Failures.type(e);
      metrics.toolCall(
          request.agent(), request.toolName(), Duration.ofNanos(System.nanoTime() - started), type);
      trace.failed(type, e.getMessage());
      throw e;
    } catch (Error e) {
      // Ended whatever the failure: the trace's span may be current on this pooled thread.
      trace.failed(Failures.type(e), e.getMessage());
      throw e;
    }
    trace.ended(outcome.result(), outcome.errorCode());
    metrics.toolCall(
        request.agent(),
        request.toolName(),
        Duration.ofNanos(System.nanoTime() - started),
        outcome.errorCode());
    return outcome.withTimes(startedAt, System.currentTimeMillis());
  }

  private ToolOutcome execute(ToolRequest request) {
    Agent agent;
    try {
      agent =
          definitions
              .forRun(request.sessionId(), request.run(), request.agent(), request.fingerprint())
              .agent();
    } catch (StoreException e) {
      // The definition is another one than the worker's and the store cannot give it: the
      // workflow calls again once the store is back, and the tool's own attempts are not spent.
      throw StoreFailures.waitedOut(e, request.sessionId());
    } catch (ApplicationFailure refused) {
      if (!FailureTypes.AGENT_DRIFT.equals(refused.getType())) {
        throw refused;
      }
      // Not run: the run fails at its next model turn, naming what changed.
      return error(FailureTypes.AGENT_DRIFT, "Not run: " + refused.getOriginalMessage());
    }
    Tool tool = agent.tool(request.toolName());
    if (tool == null) {
      // The workflow only calls tools of the run's recorded definition: this worker lacks it.
      return error(
          ErrorResults.TOOL_UNAVAILABLE,
          "Tool '"
              + request.toolName()
              + "' of the run's definition is not on this worker (agent '"
              + agent.name()
              + "' no longer has it).");
    }
    JsonNode arguments =
        request.arguments() == null ? JsonNodeFactory.instance.objectNode() : request.arguments();
    List<String> problems = tool.validate(arguments);
    if (!problems.isEmpty()) {
      return error(
          ErrorResults.INVALID_ARGUMENTS, CallChecks.invalidMessage(tool.name(), problems));
    }
    ActivityExecutionContext activity = Activity.getExecutionContext();
    ActivityInfo info = activity.getInfo();
    BusinessState state = new BusinessState(request.businessState());
    ToolHooks.HookedCall hooked;
    JsonNode result;
    // The call's heartbeats, and so its cancellation, cover its hooks as well as its handler.
    try (CallCancellation call = CallCancellation.start(activity, running, HEARTBEAT_INTERVAL)) {
      ToolContext context =
          ToolContext.newBuilder()
              .setToolCallId(request.toolCallId())
              .setSessionId(request.sessionId())
              .setAgent(agent.name())
              .setRun(request.run())
              .setAttempt(info.getAttempt())
              .setTrigger(request.trigger())
              .setBusinessState(state)
              .setIdempotencyKey(idempotencyKey(request, info))
              .setCancellation(call.cancellation())
              .build();
      hooked = hooks.call(agent, tool, context);
      ToolOutcome denied = hooked.before(arguments);
      if (denied != null) {
        return denied;
      }
      Object value;
      try {
        value = tool.handler().execute(hooked.arguments(), context);
      } catch (Exception e) {
        if (call.cancellation().isCancelled()) {
          return stopped(tool, request, info, call.cancellation().reason(), e);
        }
        return hooked.recorded(failed(tool, request, info, e));
      }
      try {
        result = value instanceof JsonNode node ? node : MAPPER.valueToTree(value);
      } catch (IllegalArgumentException e) {
        return hooked.recorded(
            error(
                ErrorResults.TOOL_ERROR,
                "Result of '" + tool.name() + "' is not JSON: " + e.getMessage()));
      }
      ToolOutcome withheld = hooked.after(result);
      if (withheld != null) {
        return withheld;
      }
      result = hooked.result();
    }
    List<JsonNode> stateUpdates = state.updates();
    if (!stateUpdates.isEmpty()) {
      int stateBytes = PayloadSizes.jsonBytes(state.get());
      if (stateBytes > BusinessState.MAX_BYTES) {
        return hooked.recorded(
            error(
                ErrorResults.STATE_TOO_LARGE,
                "Tool '"
                    + tool.name()
                    + "' made the business state "
                    + stateBytes
                    + " bytes, over the limit of "
                    + BusinessState.MAX_BYTES
                    + "; its updates were dropped. Keep bulk data in artifacts."));
      }
    }
    int size = PayloadSizes.jsonBytes(result);
    if (size > maxPayloadBytes) {
      return hooked.recorded(stored(tool, request, result, size, stateUpdates));
    }
    return hooked.recorded(
        new ToolOutcome(
            result == null ? JsonNodeFactory.instance.nullNode() : result, false, stateUpdates));
  }

  /**
   * A handler that threw without being cancelled: a transient failure fails the attempt, so the
   * tool's retry policy applies; any other becomes the call's error result.
   */
  private static ToolOutcome failed(
      Tool tool, ToolRequest request, ActivityInfo info, Exception failure) {
    if (failure instanceof RetryableToolException
        || failure instanceof IOException
        || failure instanceof UncheckedIOException
        || failure instanceof TimeoutException
        || failure instanceof InterruptedException) {
      log.warn(
          "tool {} call {} attempt {} failed transiently: {}",
          tool.name(),
          request.toolCallId(),
          info.getAttempt(),
          failure.toString());
      throw ApplicationFailure.newFailureWithCause(
          "Tool '" + tool.name() + "' failed: " + failure.getMessage(),
          FailureTypes.TOOL_TRANSIENT,
          failure);
    }
    return error(
        ErrorResults.TOOL_ERROR,
        failure.getMessage() == null ? failure.toString() : failure.getMessage());
  }

  /**
   * A handler that stopped after its call was cancelled. For a cancelled run the call's result is
   * {@code cancelled}: a regular activity reports itself cancelled, which the workflow waits for; a
   * local one, which the SDK cannot cancel, returns it. After a timeout or at a worker shutdown the
   * attempt fails, so the call runs again where the tool's retry policy allows.
   */
  private static ToolOutcome stopped(
      Tool tool,
      ToolRequest request,
      ActivityInfo info,
      ToolCancellation.Reason reason,
      Exception failure) {
    log.info(
        "tool {} call {} attempt {} stopped after its cancellation ({}): {}",
        tool.name(),
        request.toolCallId(),
        info.getAttempt(),
        reason,
        failure.toString());
    if (reason == ToolCancellation.Reason.RUN_CANCELLED) {
      if (info.isLocal()) {
        return error(ErrorResults.CANCELLED, null);
      }
      throw new ActivityCanceledException(info);
    }
    throw ApplicationFailure.newFailureWithCause(
        "Tool '"
            + tool.name()
            + "' stopped: "
            + (reason == ToolCancellation.Reason.TIMED_OUT
                ? "its attempt timed out"
                : "the worker is shutting down"),
        FailureTypes.TOOL_TRANSIENT,
        failure);
  }

  /**
   * The request's key; for a request of older workflow code, which carries none, one derived from
   * this activity's identity, stable across its attempts and unique across sessions.
   */
  private static String idempotencyKey(ToolRequest request, ActivityInfo info) {
    if (request.idempotencyKey() != null && !request.idempotencyKey().isBlank()) {
      return request.idempotencyKey();
    }
    return IdempotencyKeys.forActivity(
        info.getWorkflowId(), info.getWorkflowRunId(), info.getActivityId());
  }

  /**
   * A result over the payload limit goes to the artifact store, and a reference takes its place. If
   * it cannot be stored, the model gets an error result naming the limit.
   */
  private ToolOutcome stored(
      Tool tool, ToolRequest request, JsonNode result, int size, List<JsonNode> stateUpdates) {
    try {
      String artifactId = artifacts.put(MAPPER.writeValueAsBytes(result), "application/json");
      log.info(
          "tool {} call {}: result of {} bytes stored as artifact {}",
          tool.name(),
          request.toolCallId(),
          size,
          artifactId);
      return new ToolOutcome(StoredResults.reference(artifactId, size), false, stateUpdates);
    } catch (IOException | RuntimeException e) {
      log.warn(
          "tool {} call {}: cannot store a result of {} bytes",
          tool.name(),
          request.toolCallId(),
          size,
          e);
      return error(
          ErrorResults.RESULT_TOO_LARGE,
          "Tool '"
              + tool.name()
              + "' returned "
              + size
              + " bytes of JSON, over the limit of "
              + maxPayloadBytes
              + " bytes (AgentsPluginOptions.Builder.setMaxPayloadBytes), and it could not be"
              + " stored: "
              + e.getMessage()
              + ". Return less, or a reference to where the data is.");
    }
  }

  private static ToolOutcome error(String code, String message) {
    return new ToolOutcome(ErrorResults.of(code, message), true);
  }
}
