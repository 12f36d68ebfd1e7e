package io.durableagents.workflow.internal.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Usage;
import io.durableagents.session.RunStatus;
import io.durableagents.session.StepRecord;
import io.durableagents.session.internal.ApprovalRecord;
import java.util.List;

/**
 * One checkpoint save: a history entry {@code step} plus only the messages that are new since the
 * previous save, placed at {@code firstSeq}. Keyed by (session, step) and (session, seq), so a
 * retried save neither duplicates nor reorders anything.
 *
 * @param executionId the first run id of the session workflow; a different one means the session id
 *     was reused by a new workflow and the old rows are replaced
 * @param approvals approval rows that changed since the previous save (requested or decided)
 * @param businessState the session's business state at this entry, whole (null: none)
 * @param transcriptHash the hash chain ({@link
 *     io.durableagents.workflow.internal.wire.TranscriptHash}) of the entry's transcript, its first
 *     {@link #messageCount()} messages, when the writer knows it (a fork's first save); the
 *     workflow leaves it null, and the store continues the chain it keeps
 * @param runInfo what the entry's run has used and runs under (null in saves of older versions)
 * @param steps the model turns and tool calls recorded since the previous entry, in the order they
 *     were recorded (empty in saves of older versions)
 * @param subAgentOf a sub-agent session's parent and call (null: the session is no sub-agent's)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CheckpointSave(
    @JsonProperty("sessionId") String sessionId,
    @JsonProperty("executionId") String executionId,
    @JsonProperty("agent") String agent,
    @JsonProperty("run") int run,
    @JsonProperty("step") int step,
    @JsonProperty("status") RunStatus status,
    @JsonProperty("finishReason") String finishReason,
    @JsonProperty("firstSeq") int firstSeq,
    @JsonProperty("newMessages") List<Message> newMessages,
    @JsonProperty("usage") Usage usage,
    @JsonProperty("fingerprint") String fingerprint,
    @JsonProperty("savedAt") long savedAt,
    @JsonProperty("approvals") List<ApprovalRecord> approvals,
    @JsonProperty("businessState") JsonNode businessState,
    @JsonProperty("transcriptHash") String transcriptHash,
    @JsonProperty("runInfo") RunInfo runInfo,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonProperty("steps") List<Step> steps,
    @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("subAgentOf")
        SubAgentLink subAgentOf) {

  /** A sub-agent session's parent session and the call of the parent that it answers. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record SubAgentLink(
      @JsonProperty("parentSessionId") String parentSessionId,
      @JsonProperty("toolCallId") String toolCallId) {}

  /**
   * The entry's run: the model turns ({@code steps}) and tokens ({@code usage}) it has used of its
   * budgets, so a fork of the entry continues them; its run configuration ({@code config}, null:
   * none); and {@code drift}, what changed in the agent's definition since the run recorded it when
   * a worker under another definition ran it (null: none seen); {@code startedAt}, the workflow
   * time the run started (or was picked up after continue-as-new: the store keeps the earliest;
   * null in saves of older versions).
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record RunInfo(
      @JsonProperty("steps") int steps,
      @JsonProperty("usage") Usage usage,
      @JsonProperty("config") JsonNode config,
      @JsonProperty("drift") String drift,
      @JsonProperty("startedAt") Long startedAt) {

    public RunInfo {
      usage = usage == null ? Usage.ZERO : usage;
    }

    public RunInfo(int steps, Usage usage, JsonNode config, String drift) {
      this(steps, usage, config, drift, null);
    }
  }

  /**
   * One step record of the entry, keyed in the store by the entry's step, its kind and {@code
   * position}: 0 for a model turn (one per entry), the call's position among its run's calls for a
   * tool call (as in its idempotency key), so a save of the same entry again (an approval's
   * decision) adds its calls' rows next to the earlier ones.
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Step(
      @JsonProperty("position") int position, @JsonProperty("record") StepRecord record) {}

  public CheckpointSave {
    newMessages = newMessages == null ? List.of() : List.copyOf(newMessages);
    approvals = approvals == null ? List.of() : List.copyOf(approvals);
    steps = steps == null ? List.of() : List.copyOf(steps);
  }

  /** A save without step records. */
  public CheckpointSave(
      String sessionId,
      String executionId,
      String agent,
      int run,
      int step,
      RunStatus status,
      String finishReason,
      int firstSeq,
      List<Message> newMessages,
      Usage usage,
      String fingerprint,
      long savedAt,
      List<ApprovalRecord> approvals,
      JsonNode businessState,
      String transcriptHash,
      RunInfo runInfo) {
    this(
        sessionId,
        executionId,
        agent,
        run,
        step,
        status,
        finishReason,
        firstSeq,
        newMessages,
        usage,
        fingerprint,
        savedAt,
        approvals,
        businessState,
        transcriptHash,
        runInfo,
        List.of(),
        null);
  }

  /** A save of a session that is no sub-agent's (or whose link another save carries). */
  public CheckpointSave(
      String sessionId,
      String executionId,
      String agent,
      int run,
      int step,
      RunStatus status,
      String finishReason,
      int firstSeq,
      List<Message> newMessages,
      Usage usage,
      String fingerprint,
      long savedAt,
      List<ApprovalRecord> approvals,
      JsonNode businessState,
      String transcriptHash,
      RunInfo runInfo,
      List<Step> steps) {
    this(
        sessionId,
        executionId,
        agent,
        run,
        step,
        status,
        finishReason,
        firstSeq,
        newMessages,
        usage,
        fingerprint,
        savedAt,
        approvals,
        businessState,
        transcriptHash,
        runInfo,
        steps,
        null);
  }

  /**
   * This save without the fields every save of one model turn's request shares with the request
   * (session, execution, agent, fingerprint): the request carries them once (see {@code
   * ModelTurnRequest#foldedSaves()}).
   */
  public CheckpointSave compact() {
    return withRequestFields(null, null, null, null);
  }

  /** This save with the fields a {@link #compact()} one left out filled in from its request. */
  public CheckpointSave completedWith(
      String sessionId, String executionId, String agent, String fingerprint) {
    if (this.sessionId != null) {
      return this;
    }
    return withRequestFields(sessionId, executionId, agent, fingerprint);
  }

  /**
   * This save naming {@code agent} when it names none: the save of a session's first run that
   * failed before its agent (the worker's default) was resolved.
   */
  public CheckpointSave withAgentIfNone(String agent) {
    return this.agent != null || agent == null
        ? this
        : withRequestFields(sessionId, executionId, agent, fingerprint);
  }

  private CheckpointSave withRequestFields(
      String sessionId, String executionId, String agent, String fingerprint) {
    return new CheckpointSave(
        sessionId,
        executionId,
        agent,
        run,
        step,
        status,
        finishReason,
        firstSeq,
        newMessages,
        usage,
        fingerprint,
        savedAt,
        approvals,
        businessState,
        transcriptHash,
        runInfo,
        steps,
        subAgentOf);
  }

  /** Number of messages in the transcript once this save is applied. */
  public int messageCount() {
    return firstSeq + newMessages.size();
  }
}
