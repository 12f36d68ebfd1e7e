package io.durableagents.workflow.internal.activity;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.UUID;

/**
 * The idempotency keys handed to tools. A model's tool-call id is only unique within one
 * conversation (a scripted model repeats {@code call_0_0} in every session, a fork copies its
 * parent's ids), so the key is derived from the session's identity and the call's place in it: the
 * session id, the session's first workflow run id (unchanged by continue-as-new, new for a fork or
 * for a session id used again after its workflow closed), the run number, the call's position among
 * the run's tool calls, and its id. Pure and deterministic: the workflow computes it, and a replay,
 * a retry or a resumed wait computes the same.
 *
 * <p>A key is a UUID (RFC 9562 version 8, the first 128 bits of a SHA-256), accepted wherever an
 * API asks for an idempotency key.
 */
public final class IdempotencyKeys {
  private IdempotencyKeys() {}

  /**
   * The key of a tool call: {@code ordinal} is its position among the tool calls of run {@code run}
   * (0 for the first call of the run), {@code executionId} the session workflow's first run id.
   */
  public static String forCall(
      String sessionId, String executionId, int run, int ordinal, String toolCallId) {
    return uuid(
        "tool-call",
        sessionId,
        executionId,
        Integer.toString(run),
        Integer.toString(ordinal),
        toolCallId);
  }

  /**
   * The id of the approval that gates a call, from the call's place: a pause reached again, on
   * whatever path, gets the same id, and a decision on it is idempotent. Unlike {@link #forCall} it
   * leaves out the session id, which a replay of the history under another workflow id (Temporal's
   * {@code WorkflowReplayer}) would change: decisions name this id, so replay must compute it
   * again. The session's first workflow run id is unique on its own.
   */
  public static String forApproval(String executionId, int run, int ordinal, String toolCallId) {
    return uuid(
        "approval", executionId, Integer.toString(run), Integer.toString(ordinal), toolCallId);
  }

  /**
   * The key a sub-agent call's child session id ends with: from the call's place, without the
   * session id for the reason {@link #forApproval} gives (a replay under another workflow id must
   * start the same child).
   */
  public static String forSubAgent(String executionId, int run, int ordinal, String toolCallId) {
    return uuid(
        "sub-agent", executionId, Integer.toString(run), Integer.toString(ordinal), toolCallId);
  }

  /**
   * The key of a call whose request carries none (scheduled by workflow code older than the keys):
   * derived from the activity's own identity, which is stable across its attempts.
   */
  public static String forActivity(String workflowId, String workflowRunId, String activityId) {
    return uuid("activity", workflowId, workflowRunId, activityId);
  }

  private static String uuid(String... parts) {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
    for (String part : parts) {
      byte[] bytes = String.valueOf(part).getBytes(StandardCharsets.UTF_8);
      // Length-prefixed, so that no two different part lists hash the same bytes.
      digest.update(ByteBuffer.allocate(4).putInt(part == null ? -1 : bytes.length).array());
      digest.update(bytes);
    }
    ByteBuffer hash = ByteBuffer.wrap(digest.digest());
    long high = (hash.getLong() & ~0xF000L) | 0x8000L; // version 8
    long low = (hash.getLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L; // RFC 9562 variant
    return new UUID(high, low).toString();
  }
}
