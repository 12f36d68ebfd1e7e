package io.durableagents.activities.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.durableagents.agent.Agent;
import io.durableagents.artifacts.ArtifactStore;
import io.durableagents.artifacts.FileArtifactStore;
import io.durableagents.store.StoreException;
import io.durableagents.tools.BusinessState;
import io.durableagents.tools.RetryableToolException;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolContext;
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
import io.temporal.client.ActivityCompletionException;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
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
 * <p>While a handler runs as a regular activity, the worker heartbeats for it every {@link
 * #HEARTBEAT_INTERVAL}, from a daemon thread: the handler needs no code for it, and the server
 * learns within the tool's heartbeat timeout that a worker died, instead of after the tool's whole
 * timeout. A handler quicker than the interval sends no heartbeat.
 */
public final class ToolActivitiesImpl implements ToolActivities {
  private static final Logger log = LoggerFactory.getLogger(ToolActivitiesImpl.class);
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /**
   * How often a running tool heartbeats: a third of the tool heartbeat timeout the workflow sets
   * (10 s), so one late tick (a GC pause, a slow heartbeat round trip) is not taken for a dead
   * worker. The SDK sends at most one heartbeat per throttle interval.
   */
  public static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(3);

  /**
   * One shared ticker: a tick only hands a heartbeat to the SDK (the first of a period is a round
   * trip).
   */
  private static final ScheduledExecutorService HEARTBEATS =
      Executors.newScheduledThreadPool(
          2,
          task -> {
            Thread thread = new Thread(task, "tool-heartbeats");
            thread.setDaemon(true);
            return thread;
          });

  private final AgentDefinitions definitions;
  private final int maxPayloadBytes;
  private ArtifactStore artifacts = FileArtifactStore.defaultStore();
  private ToolHooks hooks = ToolHooks.NONE;

  public ToolActivitiesImpl(AgentDefinitions definitions, int maxPayloadBytes) {
    this.definitions = definitions;
    this.maxPayloadBytes = maxPayloadBytes;
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

  @Override
  public ToolOutcome executeTool(ToolRequest request) {
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
    ActivityInfo info = Activity.getExecutionContext().getInfo();
    ToolContext context =
        ToolContext.newBuilder()
            .setToolCallId(request.toolCallId())
            .setSessionId(request.sessionId())
            .setAgent(agent.name())
            .setRun(request.run())
            .setAttempt(info.getAttempt())
            .setTrigger(request.trigger())
            .setBusinessState(new BusinessState(request.businessState()))
            .setIdempotencyKey(idempotencyKey(request, info))
            .build();
    ToolHooks.HookedCall hooked = hooks.call(agent, tool, context, heartbeat(info));
    ToolOutcome stopped = hooked.before(arguments);
    if (stopped != null) {
      return stopped;
    }
    arguments = hooked.arguments();
    Object value;
    ScheduledFuture<?> heartbeats =
        info.isLocal() ? null : heartbeatWhileRunning(Activity.getExecutionContext());
    try {
      value = tool.handler().execute(arguments, context);
    } catch (RetryableToolException | IOException | UncheckedIOException | TimeoutException e) {
      log.warn(
          "tool {} call {} attempt {} failed transiently: {}",
          tool.name(),
          request.toolCallId(),
          info.getAttempt(),
          e.toString());
      throw ApplicationFailure.newFailureWithCause(
          "Tool '" + tool.name() + "' failed: " + e.getMessage(), FailureTypes.TOOL_TRANSIENT, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ApplicationFailure.newFailure(
          "Tool '" + tool.name() + "' was interrupted", FailureTypes.TOOL_TRANSIENT);
    } catch (Exception e) {
      return hooked.recorded(
          error(ErrorResults.TOOL_ERROR, e.getMessage() == null ? e.toString() : e.getMessage()));
    } finally {
      if (heartbeats != null) {
        heartbeats.cancel(false);
      }
    }
    JsonNode result;
    try {
      result = value instanceof JsonNode node ? node : MAPPER.valueToTree(value);
    } catch (IllegalArgumentException e) {
      return error(
          ErrorResults.TOOL_ERROR,
          "Result of '" + tool.name() + "' is not JSON: " + e.getMessage());
    }
    stopped = hooked.after(result);
    if (stopped != null) {
      return stopped;
    }
    result = hooked.result();
    List<JsonNode> stateUpdates = context.businessState().updates();
    if (!stateUpdates.isEmpty()) {
      int stateBytes = PayloadSizes.jsonBytes(context.businessState().get());
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

  /** What a hook that runs long calls: a heartbeat, for a regular activity. */
  private static Runnable heartbeat(ActivityInfo info) {
    if (info.isLocal()) {
      return () -> {};
    }
    ActivityExecutionContext execution = Activity.getExecutionContext();
    return () -> {
      try {
        execution.heartbeat(null);
      } catch (ActivityCompletionException e) {
        // The attempt is over; the hook's timeout still bounds the wait.
      }
    };
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
              + " bytes (AgentsPluginOptions.maxPayloadBytes), and it could not be"
              + " stored: "
              + e.getMessage()
              + ". Return less, or a reference to where the data is.");
    }
  }

  /**
   * Heartbeats for the running handler until the returned future is cancelled. Once a heartbeat
   * reports that the attempt is over (cancelled, timed out, the worker shutting down) it stops; any
   * other failure is logged and the next tick tries again.
   */
  private static ScheduledFuture<?> heartbeatWhileRunning(ActivityExecutionContext context) {
    long interval = HEARTBEAT_INTERVAL.toMillis();
    AtomicReference<ScheduledFuture<?>> self = new AtomicReference<>();
    ScheduledFuture<?> ticks =
        HEARTBEATS.scheduleWithFixedDelay(
            () -> {
              try {
                context.heartbeat(null);
              } catch (ActivityCompletionException e) {
                ScheduledFuture<?> future = self.get();
                if (future != null) {
                  future.cancel(false);
                }
              } catch (RuntimeException e) {
                log.warn(
                    "heartbeat of tool activity {} failed: {}",
                    context.getInfo().getActivityId(),
                    e.toString());
              }
            },
            interval,
            interval,
            TimeUnit.MILLISECONDS);
    self.set(ticks);
    return ticks;
  }

  private static ToolOutcome error(String code, String message) {
    return new ToolOutcome(ErrorResults.of(code, message), true);
  }
}
