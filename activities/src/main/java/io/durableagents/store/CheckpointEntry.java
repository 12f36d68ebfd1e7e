package io.durableagents.store;

import io.durableagents.workflow.Usage;

/**
 * One entry of a session's checkpoint history.
 *
 * @param savedAt epoch milliseconds (UTC)
 * @param finishReason why the step ended, or {@code null}
 * @param messageCount the number of transcript messages at this checkpoint
 * @param fingerprint the agent definition fingerprint, or {@code null}
 */
public record CheckpointEntry(
    int step,
    int run,
    long savedAt,
    String status,
    String finishReason,
    int messageCount,
    Usage usage,
    String fingerprint) {}
