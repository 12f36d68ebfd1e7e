package io.durableagents.store;

import io.durableagents.workflow.RunStatus;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.workflow.Usage;

/**
 * One entry of a session's checkpoint history.
 *
 * @param savedAt epoch milliseconds (UTC)
 * @param finishReason why the step ended, or {@code null}
 * @param messageCount the number of transcript messages at this checkpoint
 * @param fingerprint the agent definition fingerprint, or {@code null}
 * @param businessState the tools' business state at this entry, or {@code null} when there is none
 * @param transcriptHash the hash chain of the entry's transcript, or {@code null} when the save
 *     did not carry one (older workflow code)
 */
public record CheckpointEntry(
    int step,
    int run,
    long savedAt,
    RunStatus status,
    String finishReason,
    int messageCount,
    Usage usage,
    String fingerprint,
    JsonNode businessState,
    String transcriptHash) {}
