package io.durableagents.console.internal;

import io.durableagents.client.AgentClient;
import io.durableagents.client.ApprovalPage;
import io.durableagents.client.HistoryEntry;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SessionFilter;
import io.durableagents.client.SessionIds;
import io.durableagents.client.SessionPage;
import io.durableagents.client.SessionRow;
import io.durableagents.console.ConsoleOptions;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.Trajectories;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The API's reads: lists and transcripts from the projection, live status from the session. */
public final class ReadHandlers {
  /** How long a session page waits for the session's {@code status} query before going without. */
  static final long LIVE_STATUS_TIMEOUT_MS = 2_000;

  private final AgentClient agents;
  private final ProjectionReader projection;
  private final ConsoleOptions options;

  /** Runs the status queries, so a slow one holds no request thread past its timeout. */
  private final ExecutorService queries =
      Executors.newCachedThreadPool(
          runnable -> {
            Thread thread = new Thread(runnable, "console-status-query");
            thread.setDaemon(true);
            return thread;
          });

  public ReadHandlers(AgentClient agents, ProjectionReader projection, ConsoleOptions options) {
    this.agents = agents;
    this.projection = projection;
    this.options = options;
  }

  /** {@code GET /api/sessions}. */
  public void sessions(Context ctx) {
    RunStatus status = null;
    String statusParam = blankToNull(ctx.queryParam("status"));
    if (statusParam != null) {
      try {
        status = RunStatus.fromValue(statusParam);
      } catch (IllegalArgumentException e) {
        throw ApiException.badRequest("status", "unknown status '" + statusParam + "'");
      }
    }
    SessionFilter filter =
        new SessionFilter(
            status, blankToNull(ctx.queryParam("agent")), blankToNull(ctx.queryParam("q")));
    int limit = Bodies.intParam(ctx, "limit", 50, 1, ProjectionReader.MAX_PAGE);
    SessionPage page;
    try {
      page = projection.sessions(filter, blankToNull(ctx.queryParam("cursor")), limit);
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("cursor", e.getMessage());
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("sessions", page.sessions());
    body.put("nextCursor", page.nextCursor());
    ctx.json(body);
  }

  /** {@code GET /api/sessions/{id}}. */
  public void session(Context ctx) {
    String sessionId = sessionId(ctx);
    Optional<SessionRow> row = projection.session(sessionId);
    SessionStatus live = liveStatus(sessionId);
    if (row.isEmpty() && live == null) {
      throw ApiException.notFound("no session '" + sessionId + "'");
    }
    Object businessState = live == null ? null : live.businessState();
    if (live == null) {
      businessState =
          projection.history(sessionId, 1).stream()
              .findFirst()
              .map(entry -> entry.checkpoint().businessState())
              .orElse(null);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("session", row.orElse(null));
    body.put("live", live);
    body.put("transcript", projection.messages(sessionId, -1));
    body.put("approvals", projection.approvals(sessionId, false));
    body.put("businessState", businessState);
    body.put(
        "lineage",
        Views.lineage(
            row.orElse(null), projection.forks(sessionId), projection.subAgents(sessionId)));
    body.put(
        "temporalUrl",
        Views.temporalUrl(options.getTemporalUiUrl(), options.getNamespace(), sessionId));
    ctx.json(body);
  }

  /**
   * Refuses (404) a session that neither the projection nor Temporal knows: both answered, and
   * neither has it (a session started a moment ago is known to Temporal before its first save).
   * When either cannot answer, the caller goes on: a page's event stream waits out an outage (its
   * poller reads again), where a refusal would end it for good, as browsers do not retry one.
   */
  public void refuseUnknownSession(String sessionId) {
    try {
      if (projection.session(sessionId).isPresent()) {
        return;
      }
    } catch (RuntimeException e) {
      return; // cannot tell
    }
    CompletableFuture<Optional<SessionStatus>> query =
        CompletableFuture.supplyAsync(() -> agents.status(sessionId), queries);
    boolean unknown;
    try {
      unknown = query.get(LIVE_STATUS_TIMEOUT_MS, TimeUnit.MILLISECONDS).isEmpty();
    } catch (TimeoutException | ExecutionException e) {
      return; // cannot tell: Temporal unreachable, slow, or the session recovering
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    if (unknown) {
      throw ApiException.notFound("no session '" + sessionId + "'");
    }
  }

  /** {@code GET /api/sessions/{id}/history}. */
  public void history(Context ctx) {
    String sessionId = sessionId(ctx);
    int limit = Bodies.intParam(ctx, "limit", 0, 0, Integer.MAX_VALUE);
    List<HistoryEntry> entries = projection.history(sessionId, limit);
    if (entries.isEmpty() && projection.session(sessionId).isEmpty()) {
      throw ApiException.notFound("no session '" + sessionId + "' in the projection");
    }
    ctx.json(Map.of("entries", entries.stream().map(Views::entry).toList()));
  }

  /** {@code GET /api/approvals}. */
  public void approvals(Context ctx) {
    String pending = ctx.queryParamAsClass("pending", String.class).getOrDefault("true");
    if (!pending.equals("true") && !pending.equals("false")) {
      throw ApiException.badRequest("pending", "'pending' must be true or false");
    }
    int limit = Bodies.intParam(ctx, "limit", 1000, 1, ProjectionReader.MAX_APPROVAL_PAGE);
    ApprovalPage page;
    try {
      page =
          projection.approvals(
              pending.equals("true"), blankToNull(ctx.queryParam("cursor")), limit);
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("cursor", e.getMessage());
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("approvals", page.approvals());
    body.put("nextCursor", page.nextCursor());
    ctx.json(body);
  }

  /** {@code GET /api/sessions/{id}/compare/{otherId}}. */
  public void compare(Context ctx) {
    String sessionId = sessionId(ctx);
    String otherId = validId(ctx.pathParam("otherId"), "otherId");
    for (String id : List.of(sessionId, otherId)) {
      if (projection.session(id).isEmpty()) {
        throw ApiException.notFound("no session '" + id + "' in the projection");
      }
    }
    Trajectories.Comparison comparison = agents.compare(sessionId, otherId);
    ctx.json(comparison);
  }

  /** The session's answer to the {@code status} query; null when it has none (or is too slow). */
  SessionStatus liveStatus(String sessionId) {
    CompletableFuture<Optional<SessionStatus>> query =
        CompletableFuture.supplyAsync(() -> agents.status(sessionId), queries);
    try {
      return query.get(LIVE_STATUS_TIMEOUT_MS, TimeUnit.MILLISECONDS).orElse(null);
    } catch (TimeoutException | ExecutionException e) {
      return null; // the projection still answers: no worker, or Temporal unreachable
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** The {@code {id}} path parameter, a valid session id (else 400). */
  public static String sessionId(Context ctx) {
    return validId(ctx.pathParam("id"), "id");
  }

  static String validId(String id, String field) {
    try {
      SessionIds.requireValid(id);
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest(field, e.getMessage());
    }
    return id;
  }

  static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
