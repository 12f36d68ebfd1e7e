package io.durableagents.console.internal;

import io.durableagents.client.ApprovalRow;
import io.durableagents.client.Checkpoint;
import io.durableagents.client.HistoryEntry;
import io.durableagents.client.SessionRow;
import io.durableagents.session.StepRecord;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The JSON shapes of the API that are not a client record as is. */
final class Views {
  private Views() {}

  /** A history entry without its transcript (the session's transcript is listed once). */
  static Map<String, Object> entry(HistoryEntry entry) {
    Checkpoint checkpoint = entry.checkpoint();
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("step", entry.step());
    view.put("run", checkpoint.run());
    view.put("status", entry.status().value());
    view.put("finishReason", checkpoint.finishReason());
    view.put("messageCount", checkpoint.messages().size());
    view.put("usage", checkpoint.usage());
    view.put("businessState", checkpoint.businessState());
    view.put("fingerprint", checkpoint.fingerprint());
    view.put("runConfig", checkpoint.runConfig());
    view.put("drift", checkpoint.drift());
    view.put("savedAt", entry.savedAt());
    view.put("supersededBy", entry.supersededBy());
    view.put("steps", checkpoint.steps().stream().map(Views::step).toList());
    return view;
  }

  /** A step record with its duration (null when a time is unknown). */
  private static Map<String, Object> step(StepRecord step) {
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("kind", step.kind());
    view.put("name", step.name());
    view.put("startedAt", step.startedAt());
    view.put("finishedAt", step.finishedAt());
    view.put("durationMs", step.durationMs());
    view.put("usage", step.usage());
    view.put("error", step.error());
    view.put("text", step.text());
    return view;
  }

  static Map<String, Object> lineage(
      SessionRow session, List<SessionRow> forks, List<SessionRow> subAgents) {
    Map<String, Object> parent = null;
    Map<String, Object> subAgentOf = null;
    if (session != null && session.parentCallId() != null) {
      subAgentOf = new LinkedHashMap<>();
      subAgentOf.put("sessionId", session.parentSessionId());
      subAgentOf.put("callId", session.parentCallId());
    } else if (session != null && session.parentSessionId() != null) {
      parent = new LinkedHashMap<>();
      parent.put("sessionId", session.parentSessionId());
      parent.put("step", session.parentStep());
      parent.put("patch", session.forkPatch());
    }
    Map<String, Object> lineage = new LinkedHashMap<>();
    lineage.put("parent", parent);
    lineage.put(
        "forks",
        forks.stream()
            .map(
                fork -> {
                  Map<String, Object> view = new LinkedHashMap<>();
                  view.put("sessionId", fork.sessionId());
                  view.put("parentStep", fork.parentStep());
                  view.put("forkPatch", fork.forkPatch());
                  return view;
                })
            .toList());
    lineage.put("subAgentOf", subAgentOf);
    lineage.put(
        "subAgents",
        subAgents.stream()
            .map(
                child -> {
                  Map<String, Object> view = new LinkedHashMap<>();
                  view.put("sessionId", child.sessionId());
                  view.put("agent", child.agent());
                  view.put("callId", child.parentCallId());
                  view.put("status", child.status());
                  return view;
                })
            .toList());
    return lineage;
  }

  /** The earlier decision of an approval, for a 409. */
  static Map<String, Object> decision(ApprovalRow approval) {
    Map<String, Object> decision = new LinkedHashMap<>();
    decision.put("status", approval.status().value());
    decision.put("decidedBy", approval.decidedBy());
    decision.put("decidedAt", approval.decidedAt());
    decision.put("note", approval.note());
    return decision;
  }

  /** The Temporal UI's page of a session's workflow, or null without a UI. */
  static String temporalUrl(String base, String namespace, String sessionId) {
    if (base == null) {
      return null;
    }
    return base
        + "/namespaces/"
        + URLEncoder.encode(namespace, StandardCharsets.UTF_8)
        + "/workflows/"
        + URLEncoder.encode(sessionId, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
