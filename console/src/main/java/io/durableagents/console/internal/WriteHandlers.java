package io.durableagents.console.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientException;
import io.durableagents.client.ApprovalNotFoundException;
import io.durableagents.client.ApprovalRow;
import io.durableagents.client.DecisionOptions;
import io.durableagents.client.ForkResult;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SessionAwaitingApprovalException;
import io.durableagents.workflow.DecisionOutcome;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.RunResult;
import io.javalin.http.Context;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The API's writes: decisions, sends, cancels and forks, each through {@link AgentClient}, so the
 * session's own rules decide and the caller learns the outcome. Refusals are answered before
 * anything is sent wherever the projection already knows (a decided approval, an unknown session).
 */
public final class WriteHandlers {
  /** How long a send that was asked not to wait waits anyway, to report a refusal as such. */
  static final long REFUSAL_WAIT_MS = 1_500;

  /** How long a refused second decision waits for the first one's save, to answer with it. */
  static final long DECISION_SAVE_WAIT_MS = 2_000;

  private final AgentClient agents;
  private final ProjectionReader projection;
  private final Bodies bodies;

  public WriteHandlers(AgentClient agents, ProjectionReader projection, Bodies bodies) {
    this.agents = agents;
    this.projection = projection;
    this.bodies = bodies;
  }

  /** {@code POST /api/sessions/{id}/approvals/{approvalId}}. */
  public void decide(Context ctx) {
    String sessionId = ReadHandlers.sessionId(ctx);
    String approvalId = ctx.pathParam("approvalId");
    ObjectNode body = bodies.object(ctx);
    boolean approved = Bodies.requireBoolean(body, "approved");
    String note = Bodies.optionalText(body, "note");
    ApprovalRow known = approval(sessionId, approvalId).orElse(null);
    if (known == null && projection.session(sessionId).isEmpty()) {
      throw ApiException.notFound("no session '" + sessionId + "'");
    }
    if (known != null && !known.isPending()) {
      throw decided(known);
    }
    String identity = Guard.identity(ctx);
    DecisionOptions decision =
        DecisionOptions.newBuilder().setNote(note).setDecidedBy(identity).build();
    DecisionOutcome outcome;
    try {
      outcome =
          approved
              ? agents.approve(sessionId, approvalId, decision)
              : agents.reject(sessionId, approvalId, decision);
    } catch (ApprovalNotFoundException e) {
      if (!e.alreadyDecided()) {
        throw ApiException.notFound(
            "session '" + sessionId + "' has no approval '" + approvalId + "'");
      }
      // The session decided it already; its save of the decision may be a moment behind.
      ApprovalRow now = awaitDecided(sessionId, approvalId);
      throw now != null
          ? decided(now)
          : ApiException.conflict("approval_decided", e.getMessage(), Map.of("decision", Map.of()));
    }
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("outcome", outcome);
    answer.put("decidedBy", identity);
    answer.put("note", note);
    ctx.json(answer);
  }

  /** {@code POST /api/sessions/{id}/messages}. */
  public void send(Context ctx) throws InterruptedException {
    String sessionId = ReadHandlers.sessionId(ctx);
    String input = Bodies.requireText(bodies.object(ctx), "input");
    if (input.isEmpty()) {
      throw ApiException.badRequest("input", "'input' must not be empty");
    }
    boolean wait =
        !"false".equals(ctx.queryParam("wait"))
            && !"respond-async".equalsIgnoreCase(String.valueOf(ctx.header("Prefer")).strip());
    CompletableFuture<RunResult> run;
    try {
      run = agents.sendAsync(sessionId, input);
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("input", e.getMessage());
    }
    try {
      if (wait) {
        ctx.json(run.get());
        return;
      }
      run.get(REFUSAL_WAIT_MS, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      // Still running, so not refused: the session took the input.
    } catch (ExecutionException e) {
      throw sendRefusal(sessionId, e.getCause());
    }
    String location = "/api/sessions/" + URLEncoder.encode(sessionId, StandardCharsets.UTF_8);
    ctx.status(202).header("Location", location);
    ctx.json(Map.of("sessionId", sessionId, "location", location));
  }

  private RuntimeException sendRefusal(String sessionId, Throwable cause) {
    if (cause instanceof SessionAwaitingApprovalException awaiting) {
      Object approval =
          approval(sessionId, awaiting.approvalId())
              .<Object>map(row -> row)
              .orElse(Map.of("approvalId", String.valueOf(awaiting.approvalId())));
      return ApiException.conflict(
          "awaiting_approval", awaiting.getMessage(), Map.of("approval", approval));
    }
    if (cause instanceof RuntimeException runtime) {
      return runtime; // mapped by the console's exception handlers
    }
    return new AgentClientException("the send failed: " + cause, cause);
  }

  /** {@code POST /api/sessions/{id}/cancel}. */
  public void cancel(Context ctx) {
    String sessionId = ReadHandlers.sessionId(ctx);
    agents.cancel(sessionId);
    ctx.json(Map.of("sessionId", sessionId, "cancelled", true));
  }

  /**
   * {@code POST /api/sessions/{id}/close?force=}: closes the session (its workflow completes after
   * its run; a send starts it again) and answers its status. A pending approval without {@code
   * force} is a 409 naming it.
   */
  public void close(Context ctx) {
    String sessionId = ReadHandlers.sessionId(ctx);
    boolean force = Bodies.booleanParam(ctx, "force");
    try {
      ctx.json(agents.close(sessionId, force));
    } catch (SessionAwaitingApprovalException e) {
      throw sendRefusal(sessionId, e);
    }
  }

  /**
   * {@code POST /api/sessions/{id}/reset?force=} with {@code {"step": N}}: moves the session back
   * to its history entry N (its later entries kept, marked superseded) and answers its status. An
   * entry the session does not have is a 404 and changes nothing; a pending approval without {@code
   * force} is a 409 naming it.
   */
  public void reset(Context ctx) {
    String sessionId = ReadHandlers.sessionId(ctx);
    int step = Bodies.requireInt(bodies.object(ctx), "step");
    boolean force = Bodies.booleanParam(ctx, "force");
    try {
      ctx.json(agents.reset(sessionId, step, force));
    } catch (SessionAwaitingApprovalException e) {
      throw sendRefusal(sessionId, e);
    }
  }

  /**
   * {@code POST /api/sessions/{id}/delete?keepHistory=&force=}: closes the session, removes its
   * projection rows (its history kept with {@code keepHistory}) and its workflow executions. A
   * pending approval without {@code force} is a 409 naming it.
   */
  public void delete(Context ctx) {
    String sessionId = ReadHandlers.sessionId(ctx);
    boolean keepHistory = Bodies.booleanParam(ctx, "keepHistory");
    boolean force = Bodies.booleanParam(ctx, "force");
    try {
      agents.delete(sessionId, keepHistory, force);
    } catch (SessionAwaitingApprovalException e) {
      throw sendRefusal(sessionId, e);
    }
    ctx.json(Map.of("sessionId", sessionId, "deleted", true, "keepHistory", keepHistory));
  }

  /** {@code POST /api/sessions/{id}/forks}. */
  public void fork(Context ctx) {
    String sessionId = ReadHandlers.sessionId(ctx);
    ObjectNode body = bodies.object(ctx);
    int fromStep = Bodies.requireInt(body, "fromStep");
    ForkPatch patch = patch(Bodies.optionalObject(body, "patch"));
    String newSessionId = Bodies.optionalText(body, "newSessionId");
    if (newSessionId != null) {
      ReadHandlers.validId(newSessionId, "newSessionId");
    }
    if (projection.session(sessionId).isEmpty()) {
      throw ApiException.notFound("no session '" + sessionId + "' in the projection");
    }
    ForkResult fork = agents.fork(sessionId, fromStep, patch, newSessionId);
    String location =
        "/api/sessions/" + URLEncoder.encode(fork.sessionId(), StandardCharsets.UTF_8);
    ctx.status(201).header("Location", location);
    ctx.json(fork);
  }

  /**
   * A fork's patch from its JSON: {@code businessState}, {@code toolResults}, {@code appendInput}.
   */
  static ForkPatch patch(ObjectNode json) {
    if (json == null) {
      return ForkPatch.NONE;
    }
    List<String> known = List.of("businessState", "toolResults", "appendInput");
    json.fieldNames()
        .forEachRemaining(
            name -> {
              if (!known.contains(name)) {
                throw ApiException.badRequest(
                    "patch." + name, "a patch has no field '" + name + "'");
              }
            });
    ForkPatch.Builder patch = ForkPatch.newBuilder();
    if (json.has("businessState")) {
      JsonNode state = json.get("businessState");
      if (!state.isNull() && !state.isObject()) {
        throw ApiException.badRequest(
            "patch.businessState", "'businessState' must be a JSON object, or null to clear it");
      }
      patch.setBusinessState(state.isNull() ? NullNode.getInstance() : state);
    }
    JsonNode results = json.get("toolResults");
    if (results != null && !results.isNull()) {
      if (!results.isArray()) {
        throw ApiException.badRequest("patch.toolResults", "'toolResults' must be an array");
      }
      List<ForkPatch.ToolResultPatch> patches = new ArrayList<>();
      for (JsonNode result : results) {
        JsonNode callId = result.get("toolCallId");
        if (callId == null || !callId.isTextual() || !result.has("result")) {
          throw ApiException.badRequest(
              "patch.toolResults", "each tool result needs 'toolCallId' (a string) and 'result'");
        }
        patches.add(new ForkPatch.ToolResultPatch(callId.textValue(), result.get("result")));
      }
      patch.setToolResults(patches);
    }
    JsonNode append = json.get("appendInput");
    if (append != null && !append.isNull()) {
      if (!append.isTextual()) {
        throw ApiException.badRequest("patch.appendInput", "'appendInput' must be a string");
      }
      patch.setAppendInput(append.textValue());
    }
    return patch.build();
  }

  /** The decided row of an approval, waiting up to {@link #DECISION_SAVE_WAIT_MS} for its save. */
  private ApprovalRow awaitDecided(String sessionId, String approvalId) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DECISION_SAVE_WAIT_MS);
    while (true) {
      ApprovalRow row = approval(sessionId, approvalId).orElse(null);
      if (row != null && !row.isPending()) {
        return row;
      }
      if (System.nanoTime() > deadline) {
        return null;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
  }

  private Optional<ApprovalRow> approval(String sessionId, String approvalId) {
    if (approvalId == null) {
      return Optional.empty();
    }
    return projection.approvals(sessionId, false).stream()
        .filter(row -> approvalId.equals(row.approvalId()))
        .findFirst();
  }

  private static ApiException decided(ApprovalRow approval) {
    return ApiException.conflict(
        "approval_decided",
        "approval " + approval.approvalId() + " was decided already: " + approval.status().value(),
        Map.of("decision", Views.decision(approval)));
  }
}
