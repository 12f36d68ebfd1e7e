package io.durableagents.activities.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.durableagents.agent.Agent;
import io.durableagents.tools.AfterCallDecision;
import io.durableagents.tools.BeforeCallDecision;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolContext;
import io.durableagents.tools.ToolHook;
import io.durableagents.tools.ToolHookCall;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.internal.activity.HookRecord;
import io.durableagents.workflow.internal.activity.ToolOutcome;
import io.durableagents.workflow.internal.wire.ErrorResults;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link ToolHook}s of one worker around the tool calls it executes: the plugin's hooks,
 * then the agent's, each in registration order. Every hook runs on a thread of its own and gets
 * {@code timeout}: a hook that hangs costs the call a {@code hook_timeout} result, never the
 * activity. The call's heartbeats go on while a hook runs ({@link CallCancellation}), so a slow
 * hook is not taken for a dead worker.
 */
public final class ToolHooks {
  private static final Logger log = LoggerFactory.getLogger(ToolHooks.class);

  /** Default of the plugin's tool hook timeout. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  /** Hooks of no worker: calls run as the model asked. */
  public static final ToolHooks NONE = new ToolHooks(List.of(), DEFAULT_TIMEOUT);

  /** Threads the hooks run on; an abandoned (timed out) hook keeps its thread until it returns. */
  private static final ExecutorService THREADS =
      Executors.newCachedThreadPool(
          task -> {
            Thread thread = new Thread(task, "tool-hooks");
            thread.setDaemon(true);
            return thread;
          });

  private final List<ToolHook> global;
  private final Duration timeout;

  /** The plugin's hooks {@code global}, each given {@code timeout} per call. */
  public ToolHooks(List<ToolHook> global, Duration timeout) {
    this.global = List.copyOf(global);
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  /** The hooks of {@code agent}'s call of {@code tool}, not yet run. */
  HookedCall call(Agent agent, Tool tool, ToolContext context) {
    List<ToolHook> hooks = new ArrayList<>(global);
    hooks.addAll(agent.toolHooks());
    return new HookedCall(hooks, tool, context);
  }

  /**
   * One call going through the hooks: {@link #before} with the model's arguments, the handler with
   * {@link #arguments()}, then {@link #after} with its result. Either answers the call's outcome
   * when a hook stopped it.
   */
  final class HookedCall {
    private final List<ToolHook> hooks;
    private final Tool tool;
    private final ToolContext context;
    private final List<HookRecord> records = new ArrayList<>();
    private JsonNode arguments;
    private JsonNode result;

    private HookedCall(List<ToolHook> hooks, Tool tool, ToolContext context) {
      this.hooks = hooks;
      this.tool = tool;
      this.context = context;
    }

    /**
     * Runs the {@code beforeCall} hooks on {@code modelArguments} (already valid); answers the
     * call's outcome when one denied it, failed, or rewrote it into arguments the schema refuses;
     * null when the handler runs, with {@link #arguments()}.
     */
    ToolOutcome before(JsonNode modelArguments) {
      arguments = modelArguments;
      for (ToolHook hook : hooks) {
        String name = nameOf(hook);
        BeforeCallDecision decision;
        try {
          decision = bounded(name, () -> hook.beforeCall(view()));
        } catch (HookFailure failure) {
          return failed(name, failure);
        }
        if (decision.isDenied()) {
          records.add(new HookRecord(name, HookRecord.Action.DENIED, decision.denialReason()));
          return recorded(
              errorOutcome(
                  ErrorResults.byHook(ErrorResults.TOOL_DENIED, name, decision.denialReason())));
        }
        if (decision.rewrittenArguments() != null) {
          records.add(new HookRecord(name, HookRecord.Action.REWROTE_ARGUMENTS, null));
          arguments = decision.rewrittenArguments();
          List<String> problems = tool.validate(arguments);
          if (!problems.isEmpty()) {
            return recorded(
                errorOutcome(
                    ErrorResults.byHook(
                        ErrorResults.INVALID_ARGUMENTS,
                        name,
                        "Hook '"
                            + name
                            + "' rewrote the arguments: "
                            + CallChecks.invalidMessage(tool.name(), problems))));
          }
        }
      }
      return null;
    }

    /** The arguments the handler runs with: the model's, or the last rewrite's. */
    JsonNode arguments() {
      return arguments;
    }

    /**
     * Runs the {@code afterCall} hooks on the handler's {@code handlerResult}; answers the call's
     * outcome when one failed (the handler's result withheld), null when the call goes on with
     * {@link #result()}.
     */
    ToolOutcome after(JsonNode handlerResult) {
      result = handlerResult == null ? JsonNodeFactory.instance.nullNode() : handlerResult;
      for (ToolHook hook : hooks) {
        String name = nameOf(hook);
        JsonNode current = result;
        AfterCallDecision decision;
        try {
          decision = bounded(name, () -> hook.afterCall(view(), current.deepCopy()));
        } catch (HookFailure failure) {
          return failed(name, failure);
        }
        if (decision.replacement() != null) {
          records.add(new HookRecord(name, HookRecord.Action.REPLACED_RESULT, null));
          result = decision.replacement();
        }
      }
      return null;
    }

    /** The result to record: the handler's, or the last replacement. */
    JsonNode result() {
      return result;
    }

    /** {@code outcome} with what the hooks did to the call. */
    ToolOutcome recorded(ToolOutcome outcome) {
      return records.isEmpty() ? outcome : outcome.withHooks(records);
    }

    private ToolHookCall view() {
      return new ToolHookCall(tool.name(), arguments.deepCopy(), context);
    }

    private ToolOutcome failed(String name, HookFailure failure) {
      log.warn(
          "tool {} call {}: hook {} {}",
          tool.name(),
          context.toolCallId(),
          name,
          failure.getMessage(),
          failure.getCause());
      records.add(
          new HookRecord(
              name,
              failure.timedOut ? HookRecord.Action.TIMED_OUT : HookRecord.Action.FAILED,
              failure.getMessage()));
      return recorded(
          errorOutcome(
              ErrorResults.byHook(
                  failure.timedOut ? ErrorResults.HOOK_TIMEOUT : ErrorResults.HOOK_FAILED,
                  name,
                  "Hook '" + name + "' " + failure.getMessage())));
    }

    /** {@code work} on a hook thread, waited for at most {@code timeout}. */
    private <T> T bounded(String name, Callable<T> work) throws HookFailure {
      Future<T> future = THREADS.submit(work);
      try {
        T decision = future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (decision == null) {
          throw new HookFailure("returned no decision (null)", null, false);
        }
        return decision;
      } catch (TimeoutException e) {
        future.cancel(true);
        throw new HookFailure("did not answer within " + timeout, null, true);
      } catch (ExecutionException e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        throw new HookFailure(
            "failed: " + (cause.getMessage() == null ? cause.toString() : cause.getMessage()),
            cause,
            false);
      } catch (InterruptedException e) {
        future.cancel(true);
        Thread.currentThread().interrupt();
        throw ApplicationFailure.newFailure(
            "Tool hook '" + name + "' of '" + tool.name() + "' was interrupted",
            FailureTypes.TOOL_TRANSIENT);
      }
    }
  }

  private static ToolOutcome errorOutcome(JsonNode result) {
    return new ToolOutcome(result, true);
  }

  /** The hook's name; its class's when {@code name()} itself fails. */
  private static String nameOf(ToolHook hook) {
    try {
      String name = hook.name();
      return name == null || name.isBlank() ? hook.getClass().getName() : name;
    } catch (RuntimeException e) {
      return hook.getClass().getName();
    }
  }

  /** Why a hook gave no decision: it threw, answered null, or ran out of time. */
  private static final class HookFailure extends Exception {
    private static final long serialVersionUID = 1L;
    private final boolean timedOut;

    HookFailure(String message, Throwable cause, boolean timedOut) {
      super(message, cause, false, false);
      this.timedOut = timedOut;
    }
  }
}
