package io.durableagents.workflow.internal.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import io.durableagents.session.Approval;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.ToolCallRecord;
import io.durableagents.workflow.TriggerEnvelope;
import io.durableagents.workflow.internal.activity.AgentSpec;
import io.durableagents.workflow.internal.activity.CallCheck;
import java.util.List;

/**
 * Everything a session carries across continue-as-new: nothing is summarised away. The transcript
 * itself stays in the store and travels by reference (its length and hash). {@code unfinishedRun}:
 * the last run, while a send may resume it; {@code resumeRequested}: a send asked for that and the
 * run has not started yet; {@code queuedIdempotencyKey}: the idempotency key of the queued inputs.
 * {@code idleTimeoutMs}: the idle timeout of the session's agent, as its last run resolved it (0:
 * not known yet).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record SessionSnapshot(
    @JsonProperty("status") RunStatus status,
    @JsonProperty("step") int step,
    @JsonProperty("storedMessages") int storedMessages,
    @JsonProperty("transcriptHash") String transcriptHash,
    @JsonProperty("totalUsage") Usage totalUsage,
    @JsonProperty("lastRun") int lastRun,
    @JsonProperty("lastResult") RunResult lastResult,
    @JsonProperty("closedApprovals") List<String> closedApprovals,
    @JsonProperty("queuedInputs") List<Message> queuedInputs,
    @JsonProperty("run") RunSnapshot run,
    @JsonProperty("businessState") JsonNode businessState,
    @JsonProperty("queuedRunConfig") JsonNode queuedRunConfig,
    @JsonProperty("unfinishedRun") UnfinishedRun unfinishedRun,
    @JsonProperty("resumeRequested") boolean resumeRequested,
    @JsonProperty("queuedIdempotencyKey") String queuedIdempotencyKey,
    @JsonProperty("queuedConcurrencyKey") String queuedConcurrencyKey,
    @JsonProperty("idleTimeoutMs") long idleTimeoutMs,
    @JsonProperty("resetTo") Integer resetTo) {

  public SessionSnapshot {
    closedApprovals = closedApprovals == null ? List.of() : List.copyOf(closedApprovals);
    queuedInputs = queuedInputs == null ? List.of() : List.copyOf(queuedInputs);
  }

  /**
   * A run in progress at the boundary: its counters, and the calls of its current turn that have no
   * result yet (the first may be waiting on {@code approval}, saved at {@code pausedAt}). The run
   * keeps its recorded definition ({@code spec}, absent in snapshots of older versions, which
   * resolve the agent again), its {@code runConfig}, the {@code drift} a turn reported and the
   * {@code timeSpentMs} of its wall-clock budget; the {@code inputs} it started from and the {@code
   * idempotencyKey} of their send (both absent in snapshots of older versions), which a send that
   * resumes it after a failure repeats. A run that holds the lease of a concurrency key keeps it:
   * {@code concurrencyKey}.
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record RunSnapshot(
      @JsonProperty("run") int run,
      @JsonProperty("steps") int steps,
      @JsonProperty("usage") Usage usage,
      @JsonProperty("toolCalls") List<ToolCallRecord> toolCalls,
      @JsonProperty("lastText") String lastText,
      @JsonProperty("startInput") Message startInput,
      @JsonProperty("interjections") List<Message> interjections,
      @JsonProperty("resumeCalls") List<ToolCall> resumeCalls,
      @JsonProperty("resumeChecks") List<CallCheck> resumeChecks,
      @JsonProperty("approval") Approval approval,
      @JsonProperty("pausedAt") int pausedAt,
      @JsonProperty("trigger") TriggerEnvelope trigger,
      @JsonProperty("spec") AgentSpec spec,
      @JsonProperty("runConfig") JsonNode runConfig,
      @JsonProperty("drift") String drift,
      @JsonProperty("timeSpentMs") long timeSpentMs,
      @JsonProperty("inputs") List<Message> inputs,
      @JsonProperty("idempotencyKey") String idempotencyKey,
      @JsonProperty("concurrencyKey") String concurrencyKey) {

    public RunSnapshot {
      inputs = inputs == null ? List.of() : List.copyOf(inputs);
      toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
      interjections = interjections == null ? List.of() : List.copyOf(interjections);
      resumeCalls = resumeCalls == null ? List.of() : List.copyOf(resumeCalls);
      resumeChecks = resumeChecks == null ? List.of() : List.copyOf(resumeChecks);
    }
  }
}
