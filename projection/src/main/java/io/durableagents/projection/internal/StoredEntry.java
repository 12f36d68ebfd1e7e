package io.durableagents.projection.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Usage;
import io.durableagents.session.RunStatus;

/**
 * The row of one checkpoint history entry in {@code agent_checkpoints}; its transcript is the
 * session's first {@code messageCount} messages.
 *
 * @param savedAt epoch milliseconds (UTC) of the save (workflow time)
 * @param status the session's status after the step
 * @param finishReason why the step ended, or null
 * @param usage token totals of the session at the step
 * @param fingerprint the agent definition's fingerprint, or null
 * @param businessState the tools' business state at the step, or null when there is none
 * @param transcriptHash the hash chain of the entry's transcript, or null when the save did not
 *     carry one (older workflow code, or a projection from before the column)
 * @param runSteps model turns the entry's run had taken, or null when the save did not say (older
 *     versions)
 * @param runUsage tokens the entry's run had used, or null likewise
 * @param runConfig the run configuration of the entry's run, or null when it had none
 * @param drift what changed in the agent's definition since the run recorded it, when a worker
 *     under another definition ran it (see {@code onAgentDrift}); null: none seen
 * @param supersededBy the reset that moved the session back before this entry (e.g. {@code reset to
 *     step 2 at 2026-12-04T01:30:00Z}); null while the entry is on the session's current line
 */
public record StoredEntry(
    int step,
    int run,
    long savedAt,
    RunStatus status,
    String finishReason,
    int messageCount,
    Usage usage,
    String fingerprint,
    JsonNode businessState,
    String transcriptHash,
    Integer runSteps,
    Usage runUsage,
    JsonNode runConfig,
    String drift,
    String supersededBy) {

  /** An entry on the session's current line. */
  public StoredEntry(
      int step,
      int run,
      long savedAt,
      RunStatus status,
      String finishReason,
      int messageCount,
      Usage usage,
      String fingerprint,
      JsonNode businessState,
      String transcriptHash,
      Integer runSteps,
      Usage runUsage,
      JsonNode runConfig,
      String drift) {
    this(
        step,
        run,
        savedAt,
        status,
        finishReason,
        messageCount,
        usage,
        fingerprint,
        businessState,
        transcriptHash,
        runSteps,
        runUsage,
        runConfig,
        drift,
        null);
  }
}
