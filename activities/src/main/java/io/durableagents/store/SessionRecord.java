package io.durableagents.store;

import io.durableagents.workflow.RunStatus;
import io.durableagents.workflow.Usage;

/**
 * The stored row of one session: where it stood at its newest checkpoint.
 *
 * @param executionId the first run id of the workflow that wrote the session
 * @param lastStep the newest checkpoint step
 * @param messageCount the number of transcript messages at that checkpoint
 * @param createdAt epoch milliseconds (UTC) of the first save
 * @param updatedAt epoch milliseconds (UTC) of the newest save
 * @param parentSessionId the session a fork was taken from; null for a session that is no fork
 * @param parentStep the history step of the parent the fork starts from; null likewise
 * @param forkPatch a one-line summary of the patch the fork applied ("none" for an unpatched
 *     fork); null likewise
 */
public record SessionRecord(
    String sessionId,
    String executionId,
    String agent,
    RunStatus status,
    int currentRun,
    int lastStep,
    int messageCount,
    Usage usage,
    String fingerprint,
    long createdAt,
    long updatedAt,
    String parentSessionId,
    Integer parentStep,
    String forkPatch) {}
