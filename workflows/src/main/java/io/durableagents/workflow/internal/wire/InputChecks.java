package io.durableagents.workflow.internal.wire;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.ForkSource;
import io.durableagents.workflow.Limits;
import io.durableagents.workflow.TriggerEnvelope;

/**
 * The {@link Limits} applied to what a client sends into a session, as one-line reasons (null when
 * there is none). The client calls them before it sends anything; the session workflow calls them
 * again in its validators and handlers, so a caller that skips the client (another SDK, a raw
 * signal) cannot put state into a session that its next workflow task could not process. Pure and
 * deterministic: workflow code may use them.
 */
public final class InputChecks {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How much of a client-supplied string a reason or log line shows. */
  private static final int SHOWN_CHARS = 80;

  private InputChecks() {}

  /**
   * Why a decision (signal {@code decide}, update {@code approve}) breaks a limit, or null: its
   * approval id, note or {@code decidedBy} is too long.
   */
  public static String decisionProblem(Decision decision) {
    if (decision == null) {
      return "A decision is missing.";
    }
    if (decision.approvalId() != null
        && decision.approvalId().length() > Limits.APPROVAL_ID_CHARS) {
      return "The approval id is "
          + decision.approvalId().length()
          + " characters, over the limit of "
          + Limits.APPROVAL_ID_CHARS
          + ".";
    }
    if (decision.note() != null && decision.note().length() > Limits.NOTE_CHARS) {
      return "The note is "
          + decision.note().length()
          + " characters, over the limit of "
          + Limits.NOTE_CHARS
          + ".";
    }
    if (decision.decidedBy() != null && decision.decidedBy().length() > Limits.DECIDED_BY_CHARS) {
      return "decidedBy is "
          + decision.decidedBy().length()
          + " characters, over the limit of "
          + Limits.DECIDED_BY_CHARS
          + ".";
    }
    return requestProblem(decision);
  }

  /**
   * Why a fork's start input breaks a limit, or null: a missing or too long source session id, a
   * negative step, a patch the worker would refuse whatever the entry ({@link ForkPatch#problem}),
   * or more than {@link Limits#REQUEST_BYTES} in all.
   */
  public static String forkProblem(ForkSource source) {
    if (source == null) {
      return "A fork needs its source.";
    }
    String parent = source.parentSessionId();
    if (parent == null || parent.isBlank() || parent.length() > Limits.SESSION_ID_CHARS) {
      return "A fork needs the id of its source session (1-"
          + Limits.SESSION_ID_CHARS
          + " characters).";
    }
    if (source.parentStep() < 0) {
      return "The step to fork from is " + source.parentStep() + "; steps are not negative.";
    }
    String patchProblem = source.patch() == null ? null : source.patch().problem();
    return patchProblem != null ? patchProblem : requestProblem(source);
  }

  /** Why a trigger envelope is too large to travel with its run's tool calls, or null. */
  public static String triggerProblem(TriggerEnvelope trigger) {
    int bytes = jsonBytes(trigger);
    if (bytes > Limits.TRIGGER_BYTES) {
      return "The trigger envelope is "
          + bytes
          + " bytes of JSON, over the limit of "
          + Limits.TRIGGER_BYTES
          + "; attach large content as an artifact instead.";
    }
    return null;
  }

  /** Why a request is over {@link Limits#REQUEST_BYTES} once serialized, or null. */
  public static String requestProblem(Object request) {
    int bytes = jsonBytes(request);
    if (bytes > Limits.REQUEST_BYTES) {
      return "The request is "
          + bytes
          + " bytes of JSON, over the limit of "
          + Limits.REQUEST_BYTES
          + ".";
    }
    return null;
  }

  /** A client-supplied string cut to a length fit for a reason or a log line. */
  public static String shown(String value) {
    if (value == null || value.length() <= SHOWN_CHARS) {
      return value;
    }
    return value.substring(0, SHOWN_CHARS) + "... (" + value.length() + " characters)";
  }

  /** Bytes of {@code value} serialized as JSON, as a payload converter would write it. */
  public static int jsonBytes(Object value) {
    try {
      return JSON.writeValueAsBytes(value).length;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Not serializable as JSON: " + e.getOriginalMessage(), e);
    }
  }
}
