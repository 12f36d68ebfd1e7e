package io.durableagents.console;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientException;
import io.durableagents.client.CheckpointNotFoundException;
import io.durableagents.client.InvalidInputException;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SessionConflictException;
import io.durableagents.client.SessionExistsException;
import io.durableagents.client.SessionNotFoundException;
import io.durableagents.client.SessionRecoveringException;
import io.durableagents.console.internal.ApiException;
import io.durableagents.console.internal.Bodies;
import io.durableagents.console.internal.Guard;
import io.durableagents.console.internal.Pages;
import io.durableagents.console.internal.ReadHandlers;
import io.durableagents.console.internal.RejectedRequests;
import io.durableagents.console.internal.SessionEvents;
import io.durableagents.console.internal.WriteHandlers;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.http.sse.SseHandler;
import io.javalin.http.staticfiles.Location;
import io.javalin.json.JavalinJackson;
import java.io.IOException;
import java.net.BindException;
import java.net.URI;
import java.util.Map;
import java.util.Objects;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The back office: the approvals inbox, the session browser and the REST API they use, served over
 * HTTP by one embedded server. Decisions, sends, cancels and forks go through {@link AgentClient};
 * lists and transcripts come from the projection ({@link ProjectionReader}). See {@code
 * docs/console.md} for the API.
 *
 * <pre>{@code
 * try (AgentConsole console = AgentConsole.start(agents, projection,
 *     ConsoleOptions.newBuilder().setPort(8080).build())) {
 *   System.out.println("Console: " + console.url());
 *   ...
 * }
 * }</pre>
 *
 * <p>It refuses to listen on an address other than a loopback one without authentication ({@link
 * ConsoleAuth#tokens} or {@link ConsoleAuth#trustedHeader}).
 */
public final class AgentConsole implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AgentConsole.class);
  private static final String ASSETS = "/io/durableagents/console/assets";

  private final Javalin server;
  private final SessionEvents events;
  private final URI url;

  private AgentConsole(Javalin server, SessionEvents events, URI url) {
    this.server = server;
    this.events = events;
    this.url = url;
  }

  /**
   * Starts the console.
   *
   * @param agents the client of the sessions' namespace and task queue
   * @param projection the projection the sessions' workers write
   * @throws IllegalArgumentException when {@code options} bind an address other than a loopback one
   *     without authentication, or the address does not resolve
   * @throws IllegalStateException when the port is in use, or the address cannot be bound
   */
  public static AgentConsole start(
      AgentClient agents, ProjectionReader projection, ConsoleOptions options) {
    Objects.requireNonNull(agents, "agents");
    Objects.requireNonNull(projection, "projection");
    requireAuthOffLoopback(options);
    ObjectMapper json = new ObjectMapper();
    SessionEvents events = new SessionEvents(projection, json, options.getWorkerEvents());
    Guard guard = new Guard(options.getAuthentication(), options.getLoginTimeout());
    Bodies bodies = new Bodies(json);
    ReadHandlers reads = new ReadHandlers(agents, projection, options);
    WriteHandlers writes = new WriteHandlers(agents, projection, bodies);
    Pages pages = new Pages(ASSETS, guard);
    Javalin server =
        Javalin.create(
            config -> {
              configure(config, json);
              listen(config, options);
              routes(config, guard, bodies, reads, writes, pages, events, options);
            });
    try {
      server.start();
    } catch (RuntimeException e) {
      events.close();
      throw e;
    }
    String host =
        options.getBind().contains(":") ? "[" + options.getBind() + "]" : options.getBind();
    URI url = URI.create("http://" + host + ":" + server.port() + "/");
    log.info("Console on {} ({})", url, options.getAuthentication());
    return new AgentConsole(server, events, url);
  }

  private static void configure(JavalinConfig config, ObjectMapper json) {
    config.startup.showJavalinBanner = false;
    config.startup.showOldJavalinVersionWarning = false;
    config.http.maxRequestSize = Bodies.MAX_BODY;
    config.jsonMapper(new JavalinJackson(json, false));
    config.jetty.modifyServer(server -> server.setErrorHandler(new RejectedRequests(json)));
    config.staticFiles.add(
        files -> {
          files.hostedPath = "/assets";
          files.directory = ASSETS;
          files.location = Location.CLASSPATH;
          files.headers = Pages.SECURITY_HEADERS;
        });
  }

  /**
   * The console's one connector, bound here rather than by Javalin, which logs a failed bind as an
   * ERROR with a stack trace before it throws: a taken port is refused with one clear message.
   */
  private static void listen(JavalinConfig config, ConsoleOptions options) {
    config.jetty.addConnector(
        (server, http) -> {
          ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
          connector.setHost(options.getBind());
          connector.setPort(options.getPort());
          try {
            connector.open();
          } catch (IOException e) {
            throw new IllegalStateException(
                e.getCause() instanceof BindException
                    ? "the port is already in use: stop what listens on it or choose another port"
                    : "cannot listen: " + e.getMessage(),
                e);
          }
          return connector;
        });
  }

  private static void routes(
      JavalinConfig config,
      Guard guard,
      Bodies bodies,
      ReadHandlers reads,
      WriteHandlers writes,
      Pages pages,
      SessionEvents events,
      ConsoleOptions options) {
    var routes = config.routes;
    routes.before(ctx -> Pages.SECURITY_HEADERS.forEach(ctx::header));
    routes.before(
        "/api/*",
        ctx -> {
          String path = ctx.path();
          if (!path.equals("/api/openapi.json")
              && !path.equals("/api/login")
              && !path.equals("/api/logout")) {
            guard.authenticate(ctx);
          }
          guard.checkCsrf(ctx);
        });
    routes.get("/", pages::inbox);
    routes.get("/sessions", pages::sessions);
    routes.get("/sessions/{id}", pages::session);
    routes.get("/api/openapi.json", pages::openApi);
    routes.get(
        "/api/me",
        ctx ->
            ctx.json(
                Map.of(
                    "identity",
                    Guard.identity(ctx),
                    "auth",
                    options.getAuthentication().kind().value())));
    routes.post(
        "/api/login",
        ctx -> {
          String approver = guard.login(ctx, Bodies.requireText(bodies.object(ctx), "token"));
          ctx.json(Map.of("identity", approver, "auth", "token"));
        });
    routes.post(
        "/api/logout",
        ctx -> {
          guard.logout(ctx);
          ctx.status(204);
        });
    routes.get("/api/sessions", reads::sessions);
    routes.get("/api/sessions/{id}", reads::session);
    routes.get("/api/sessions/{id}/history", reads::history);
    routes.get("/api/sessions/{id}/compare/{otherId}", reads::compare);
    routes.get("/api/approvals", reads::approvals);
    routes.post("/api/sessions/{id}/approvals/{approvalId}", writes::decide);
    routes.post("/api/sessions/{id}/messages", writes::send);
    routes.post("/api/sessions/{id}/cancel", writes::cancel);
    routes.post("/api/sessions/{id}/close", writes::close);
    routes.post("/api/sessions/{id}/delete", writes::delete);
    routes.post("/api/sessions/{id}/reset", writes::reset);
    routes.post("/api/sessions/{id}/forks", writes::fork);
    SseHandler stream =
        new SseHandler(
            client -> {
              Context ctx = client.ctx();
              events.connect(ReadHandlers.sessionId(ctx), client, lastEventId(ctx));
            });
    routes.get(
        "/api/sessions/{id}/events",
        ctx -> {
          // Refused before the stream starts: once it has, the answer is a 200 event stream.
          reads.refuseUnknownSession(ReadHandlers.sessionId(ctx));
          stream.handle(ctx);
        });
    errors(config);
  }

  private static void errors(JavalinConfig config) {
    var routes = config.routes;
    routes.exception(ApiException.class, (e, ctx) -> answer(ctx, e));
    routes.exception(
        SessionNotFoundException.class,
        (e, ctx) -> answer(ctx, ApiException.notFound(e.getMessage())));
    routes.exception(
        SessionExistsException.class,
        (e, ctx) ->
            answer(
                ctx,
                ApiException.conflict(
                    "session_exists", e.getMessage(), Map.of("sessionId", e.sessionId()))));
    routes.exception(
        SessionConflictException.class,
        (e, ctx) ->
            answer(
                ctx,
                ApiException.conflict(
                    "session_conflict", e.getMessage(), Map.of("sessionId", e.sessionId()))));
    routes.exception(
        CheckpointNotFoundException.class,
        (e, ctx) -> answer(ctx, ApiException.notFound(e.getMessage())));
    routes.exception(
        InvalidInputException.class,
        (e, ctx) -> answer(ctx, ApiException.badRequest("body", e.getMessage())));
    routes.exception(
        IllegalArgumentException.class,
        (e, ctx) -> answer(ctx, ApiException.badRequest("body", e.getMessage())));
    routes.exception(
        SessionRecoveringException.class,
        (e, ctx) -> {
          log.warn("{} {}: {}", ctx.method(), ctx.path(), e.getMessage());
          ctx.header("Retry-After", String.valueOf(ApiException.RECOVERING_RETRY_AFTER_SECONDS));
          answer(ctx, ApiException.recovering(e.getMessage()));
        });
    routes.exception(
        AgentClientException.class,
        (e, ctx) -> {
          log.warn("{} {}: {}", ctx.method(), ctx.path(), e.getMessage());
          answer(ctx, ApiException.unavailable(e.getMessage()));
        });
    routes.exception(
        HttpResponseException.class,
        (e, ctx) ->
            answer(
                ctx,
                e.getStatus() == 413
                    ? ApiException.tooLarge(Bodies.MAX_BODY)
                    : ApiException.of(e.getStatus(), e.getMessage())));
    routes.exception(
        Exception.class,
        (e, ctx) -> {
          log.error("{} {} failed", ctx.method(), ctx.path(), e);
          answer(ctx, ApiException.of(500, "internal error: " + e));
        });
    routes.error(
        404,
        ctx -> {
          if (ctx.path().startsWith("/api/") && ctx.result() == null) {
            answer(ctx, ApiException.notFound("no such resource: " + ctx.path()));
          }
        });
  }

  private static void answer(Context ctx, ApiException e) {
    ctx.status(e.status()).json(e.body());
  }

  private static int lastEventId(Context ctx) {
    String header = ctx.header("Last-Event-ID");
    if (header == null || header.isBlank()) {
      return -1;
    }
    try {
      return Integer.parseInt(header.strip());
    } catch (NumberFormatException e) {
      return -1; // not one of ours: start over
    }
  }

  private static void requireAuthOffLoopback(ConsoleOptions options) {
    if (options.getAuthentication().kind() == ConsoleAuth.Kind.LOCAL && !options.bindsLoopback()) {
      throw new IllegalArgumentException(
          "the console binds "
              + options.getBind()
              + ", which other machines can reach: it needs authentication there"
              + " (--tokens FILE or --trusted-header HEADER), or bind 127.0.0.1");
    }
  }

  /** Why {@code options} cannot start a console, or null when they can. */
  public static String problem(ConsoleOptions options) {
    try {
      requireAuthOffLoopback(options);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  /** The console's base URL, e.g. {@code http://127.0.0.1:8080/}. */
  public URI url() {
    return url;
  }

  /** The port the console listens on (the one chosen when started with port 0). */
  public int port() {
    return server.port();
  }

  /**
   * Hands a model turn's delta to the session pages that watch {@code sessionId} now: wire it to
   * the worker's delta listener when the console runs in the worker's process.
   *
   * @param kind {@code text} or {@code reasoning}
   */
  public void publishDelta(String sessionId, int step, int attempt, String kind, String text) {
    events.publishDelta(sessionId, step, attempt, kind, text);
  }

  @Override
  public void close() {
    events.close();
    server.stop();
  }
}
