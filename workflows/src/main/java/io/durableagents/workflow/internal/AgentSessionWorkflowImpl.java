package io.durableagents.workflow.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.workflow.AgentSessionWorkflow;
import io.durableagents.workflow.ErrorInfo;
import io.durableagents.workflow.FinishReason;
import io.durableagents.workflow.Message;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.RunStatus;
import io.durableagents.workflow.SendRequest;
import io.durableagents.workflow.SessionStart;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.ToolCall;
import io.durableagents.workflow.ToolCallRecord;
import io.durableagents.workflow.Usage;
import io.durableagents.workflow.activity.AgentSpec;
import io.durableagents.workflow.activity.CheckpointSave;
import io.durableagents.workflow.activity.ModelTurnRequest;
import io.durableagents.workflow.activity.ModelTurnResult;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TemporalFailure;
import io.temporal.failure.TimeoutFailure;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * The session workflow: waits for input, runs the agent loop for it (model turn, tool batch,
 * checkpoint after each), settles the run and waits for the next message.
 *
 * <p>The {@code send} handler only enqueues input and waits for the run it belongs to; the loop
 * itself lives in the workflow method, so handlers never race on activities.
 */
public class AgentSessionWorkflowImpl implements AgentSessionWorkflow {
  private static final Logger log = Workflow.getLogger(AgentSessionWorkflowImpl.class);
  private static final int KEPT_RESULTS = 16;

  private final SessionStart start;
  private final String sessionId;
  private final ActivityStubs stubs = new ActivityStubs();
  private final Transcript transcript = new Transcript();

  /** Inputs waiting for the next run. */
  private final List<String> queuedInputs = new ArrayList<>();
  /** Inputs that arrived during the active run; placed after the current batch's results. */
  private final List<String> interjections = new ArrayList<>();
  /** Results of recent runs, by run number, for the handlers waiting on them. */
  private final Map<Integer, RunResult> results = new LinkedHashMap<>();

  private AgentSpec spec;
  private String status = RunStatus.IDLE;
  private int lastRun;
  private int activeRun;
  private int settledRun;
  private String runStartInput;
  private int step;
  private Usage totalUsage = Usage.ZERO;
  private RunResult lastResult;

  @WorkflowInit
  public AgentSessionWorkflowImpl(SessionStart start) {
    this.start = start == null ? new SessionStart(null, null, null) : start;
    this.sessionId = Workflow.getInfo().getWorkflowId();
  }

  @Override
  public void run(SessionStart ignored) {
    while (true) {
      Workflow.await(() -> !queuedInputs.isEmpty());
      List<String> inputs = new ArrayList<>(queuedInputs);
      queuedInputs.clear();
      RunResult result = new AgentRun(inputs).execute();
      settle(result);
    }
  }

  @Override
  public void validateSend(SendRequest request) {
    if (request == null) {
      throw new IllegalArgumentException("send needs a request");
    }
    if (request.isEmpty() && activeRun == 0 && queuedInputs.isEmpty() && lastResult == null) {
      throw new IllegalStateException(
          "Session '" + sessionId + "' has no run yet: send a non-empty input first.");
    }
  }

  @Override
  public RunResult send(SendRequest request) {
    int target;
    if (request.isEmpty()) {
      if (activeRun != 0) {
        target = activeRun;
      } else if (!queuedInputs.isEmpty()) {
        target = lastRun + 1;
      } else {
        return lastResult;
      }
    } else if (activeRun != 0) {
      if (request.input().equals(runStartInput) || interjections.contains(request.input())) {
        log.info("send on {}: input repeats the run's input; treated as a retry", sessionId);
      } else {
        interjections.add(request.input());
      }
      target = activeRun;
    } else {
      if (!queuedInputs.contains(request.input())) {
        queuedInputs.add(request.input());
      }
      target = lastRun + 1;
    }
    Workflow.await(() -> settledRun >= target);
    return results.get(target);
  }

  @Override
  public SessionStatus status() {
    return new SessionStatus(
        sessionId,
        spec == null ? start.agent() : spec.name(),
        status,
        lastRun,
        step,
        transcript.size(),
        totalUsage,
        lastResult);
  }

  private void settle(RunResult result) {
    results.put(result.run(), result);
    while (results.size() > KEPT_RESULTS) {
      results.remove(results.keySet().iterator().next());
    }
    lastResult = result;
    status = result.status();
    settledRun = result.run();
    activeRun = 0;
    runStartInput = null;
  }

  private void save(int stepIndex, String checkpointStatus, String finishReason) {
    CheckpointSave save =
        new CheckpointSave(
            sessionId,
            Workflow.getInfo().getFirstExecutionRunId(),
            spec == null ? start.agent() : spec.name(),
            activeRun,
            stepIndex,
            checkpointStatus,
            finishReason,
            transcript.stored(),
            transcript.unsaved(),
            totalUsage,
            spec == null ? null : spec.fingerprint(),
            Workflow.currentTimeMillis());
    stubs.checkpoints().saveCheckpoint(save);
    transcript.markSaved();
    step = Math.max(step, stepIndex);
  }

  /** One run: the loop of model turns and tool batches that one message triggers. */
  private final class AgentRun {
    private final int run;
    private final List<String> inputs;
    private final List<ToolCallRecord> toolCalls = new ArrayList<>();
    private int steps;
    private Usage usage = Usage.ZERO;
    private String lastText;

    AgentRun(List<String> inputs) {
      this.run = ++lastRun;
      this.inputs = inputs;
    }

    RunResult execute() {
      activeRun = run;
      runStartInput = inputs.get(0);
      status = RunStatus.IN_PROGRESS;
      inputs.forEach(input -> transcript.add(Message.user(input)));
      try {
        spec = stubs.agents().resolveAgent(start.agent());
      } catch (ActivityFailure failure) {
        return fail(errorOf(failure, "agent_unavailable"));
      }
      int maxSteps =
          start.maxSteps() != null && start.maxSteps() > 0 ? start.maxSteps() : spec.maxSteps();
      while (true) {
        if (steps >= maxSteps) {
          return finishOnBudget();
        }
        interjections.forEach(input -> transcript.add(Message.user(input)));
        interjections.clear();
        int turnStep = step + 1;
        ModelTurnResult turn;
        try {
          turn =
              stubs
                  .model(spec)
                  .modelTurn(
                      new ModelTurnRequest(
                          sessionId,
                          spec.name(),
                          run,
                          turnStep,
                          step,
                          transcript.stored(),
                          transcript.unsaved()));
        } catch (ActivityFailure failure) {
          ErrorInfo error = errorOf(failure, "model_error");
          save(turnStep, RunStatus.FAILED, FinishReason.ERROR);
          return fail(error);
        }
        steps++;
        usage = usage.plus(turn.usage());
        totalUsage = totalUsage.plus(turn.usage());
        lastText = turn.text();
        List<ToolCall> calls = withIds(turn.toolCalls(), turnStep);
        transcript.add(Message.assistant(turn.text(), calls));
        boolean answered = calls.isEmpty() && interjections.isEmpty();
        save(
            turnStep,
            answered ? RunStatus.FINISHED : RunStatus.IN_PROGRESS,
            turn.finishReason() != null
                ? turn.finishReason()
                : calls.isEmpty() ? FinishReason.STOP : FinishReason.TOOL_CALLS);
        if (calls.isEmpty()) {
          if (interjections.isEmpty()) {
            return result(RunStatus.FINISHED, FinishReason.STOP, null);
          }
          continue;
        }
        List<JsonNode> outcomes = new ToolBatch(stubs, spec, sessionId, run).execute(calls);
        for (int i = 0; i < calls.size(); i++) {
          ToolCall call = calls.get(i);
          transcript.add(Message.toolResult(call, outcomes.get(i)));
          toolCalls.add(new ToolCallRecord(call.id(), call.name(), call.arguments(), outcomes.get(i)));
        }
        save(step + 1, RunStatus.IN_PROGRESS, FinishReason.TOOL_CALLS);
      }
    }

    /** The step budget is used up: the last entry is saved again, now settled. */
    private RunResult finishOnBudget() {
      interjections.forEach(input -> transcript.add(Message.user(input)));
      interjections.clear();
      save(Math.max(step, 1), RunStatus.FINISHED, FinishReason.MAX_STEPS);
      return result(RunStatus.FINISHED, FinishReason.MAX_STEPS, null);
    }

    private RunResult fail(ErrorInfo error) {
      if (transcript.unsaved().size() > 0 || step == 0) {
        save(step + 1, RunStatus.FAILED, FinishReason.ERROR);
      }
      return result(RunStatus.FAILED, FinishReason.ERROR, error);
    }

    private RunResult result(String runStatus, String finishReason, ErrorInfo error) {
      return new RunResult(
          sessionId,
          run,
          runStatus,
          finishReason,
          lastText,
          null,
          steps,
          usage,
          toolCalls,
          error,
          step,
          transcript.size(),
          null);
    }
  }

  /** Gives every call an id: the provider's, or one derived from the step and position. */
  private static List<ToolCall> withIds(List<ToolCall> calls, int turnStep) {
    List<ToolCall> named = new ArrayList<>(calls.size());
    for (int i = 0; i < calls.size(); i++) {
      ToolCall call = calls.get(i);
      String id = call.id() != null && !call.id().isBlank() ? call.id() : "call_" + turnStep + "_" + i;
      named.add(new ToolCall(id, call.name(), call.arguments()));
    }
    return named;
  }

  private static ErrorInfo errorOf(ActivityFailure failure, String fallbackCode) {
    Throwable cause = failure.getCause();
    if (cause instanceof ApplicationFailure application) {
      String type = application.getType();
      String code = type == null || type.isBlank() ? fallbackCode : type;
      return new ErrorInfo(code, application.getOriginalMessage());
    }
    if (cause instanceof TimeoutFailure timeout) {
      return new ErrorInfo(fallbackCode, "timed out: " + timeout.getTimeoutType());
    }
    if (cause instanceof TemporalFailure temporal) {
      return new ErrorInfo(fallbackCode, temporal.getOriginalMessage());
    }
    return new ErrorInfo(fallbackCode, String.valueOf(failure.getMessage()));
  }
}
