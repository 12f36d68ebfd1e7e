package io.durableagents.client;

import io.durableagents.session.RunStatus;

/**
 * A session as the projection last saw it: the newest checkpoint the worker stored.
 *
 * @param currentRun the run the session is in (runs count the messages sent to it, from 1)
 * @param lastStep the step of the newest checkpoint
 * @param messageCount the number of transcript messages at that checkpoint
 * @param updatedAt epoch milliseconds (UTC) of that checkpoint
 * @param parentSessionId for a fork, the session it was taken from; otherwise null
 * @param parentStep for a fork, the parent's history step it starts from; otherwise null
 * @param forkPatch for a fork, a one-line summary of its patch ({@code "none"} if unpatched, e.g.
 *     {@code "businessState toolResult(call_0_0) appendInput"}); otherwise null
 */
public record SessionRow(
    String sessionId,
    String agent,
    RunStatus status,
    int currentRun,
    int lastStep,
    int messageCount,
    long inputTokens,
    long outputTokens,
    long updatedAt,
    String parentSessionId,
    Integer parentStep,
    String forkPatch) {}
