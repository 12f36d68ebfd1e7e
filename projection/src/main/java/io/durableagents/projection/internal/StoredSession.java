package io.durableagents.projection.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Usage;
import io.durableagents.session.RunStatus;

/**
 * The row of one session in {@code agent_sessions}: where it stood at its newest checkpoint.
 *
 * @param executionId the first run id of the workflow that wrote the session
 * @param currentRun the run the session is in (runs count the messages sent to it, from 1)
 * @param lastStep the newest checkpoint step
 * @param messageCount the number of transcript messages at that checkpoint
 * @param usage token totals at that checkpoint
 * @param fingerprint the agent definition's fingerprint, or null
 * @param createdAt epoch milliseconds (UTC) of the first save
 * @param updatedAt epoch milliseconds (UTC) of the newest save
 * @param parentSessionId the session a fork was taken from, or the parent of a sub-agent session;
 *     null for any other session
 * @param parentStep the history step of the parent the fork starts from; null likewise
 * @param forkPatch a one-line summary of the patch the fork applied ({@code "none"} for an
 *     unpatched fork); null likewise, and in a projection from before the column
 * @param runConfig the run configuration of the session's current run, or null when it has none
 * @param drift the drift a worker reported for the current run (see {@link StoredEntry#drift()}),
 *     or null
 * @param closedAt epoch milliseconds (UTC) when the session's workflow closed; null while it is
 *     open, and in a projection from before the column
 * @param resetTo the history step the session was last reset to; null when it never was, and in a
 *     projection from before the column
 * @param parentCallId the tool call of the parent that a sub-agent session answers; null for any
 *     other session, and in a projection from before the column
 */
public record StoredSession(
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
    String forkPatch,
    JsonNode runConfig,
    String drift,
    Long closedAt,
    Integer resetTo,
    String parentCallId) {

  /** Whether the session is a sub-agent's, run for a call of its parent. */
  public boolean isSubAgent() {
    return parentCallId != null;
  }

  /** Whether the session is a fork of its parent. */
  public boolean isFork() {
    return parentSessionId != null && parentCallId == null;
  }
}
