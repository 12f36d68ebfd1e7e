package io.durableagents.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.errorprone.annotations.FormatMethod;
import io.durableagents.client.AgentClient;
import io.durableagents.client.HistoryEntry;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SessionFilter;
import io.durableagents.client.SessionRow;
import io.durableagents.console.AgentConsole;
import io.durableagents.console.ConsoleOptions;
import io.durableagents.conversation.Message;
import io.durableagents.projection.ProjectionUrl;
import io.durableagents.session.RunStatus;
import io.durableagents.store.AgentStore;
import io.durableagents.store.AgentStores;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.ToIntFunction;

/**
 * {@code agents bench console}: the back office's list reads at scale. Seeds a fresh PostgreSQL
 * projection ({@link ConsoleSeed}), serves it with {@link AgentConsole} and times sequential HTTP
 * requests of the approvals inbox and the session list (first page, a deep page, a status filter,
 * an id search), checking every answer's status and counts so that errors cannot pass for speed.
 * The same reads straight through {@link ProjectionReader}, and opening a new connection alone
 * (what the reader's pool saves), are timed too: they tell how much of a route's time is the
 * database and how much the console.
 */
final class ConsoleBench implements AutoCloseable {
  /** The requirement: each route answers within this at the 95th percentile. */
  static final double TARGET_P95_MS = 200;

  /** Sessions per list page, the pages' default. */
  static final int PAGE = 50;

  /** The id search: part of a session id, matching a handful of them. */
  static final String ID_QUERY = "0042";

  /** The console caps the inbox at this many approvals unless the request asks for more. */
  static final int INBOX_DEFAULT_LIMIT = 1000;

  /** Nothing listens there: the list routes must never call Temporal. */
  static final String UNREACHABLE_TEMPORAL = "127.0.0.1:1";

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * What to seed and how often to ask.
   *
   * @param warmup rounds of every route before the timed ones (JIT, caches, connections)
   */
  record Config(int sessions, int pending, int requests, int warmup) {
    Config {
      if (sessions < 2 * PAGE) {
        throw new IllegalArgumentException(
            "--sessions must be at least "
                + 2 * PAGE
                + " (a deep page needs two), got "
                + sessions);
      }
      if (pending < 1 || pending > sessions) {
        throw new IllegalArgumentException(
            "--pending must be 1 to --sessions (" + sessions + "), got " + pending);
      }
      if (requests < 1 || warmup < 0) {
        throw new IllegalArgumentException("--requests must be positive and --warmup not negative");
      }
    }

    static Config full() {
      return new Config(10_000, 1_000, 200, 20);
    }
  }

  private final Config config;
  private final String givenUrl;
  private final PrintWriter progress;
  private EmbeddedPostgres embedded;
  private WorkflowServiceStubs stubs;
  private AgentConsole console;

  /**
   * A bench of {@code config} on the PostgreSQL database at {@code projectionUrl}, which must hold
   * no sessions yet, or on an embedded server it starts when that is null.
   */
  ConsoleBench(Config config, String projectionUrl, PrintWriter progress) {
    this.config = Objects.requireNonNull(config, "config");
    this.givenUrl = projectionUrl;
    this.progress = Objects.requireNonNull(progress, "progress");
  }

  ConsoleBenchReport run() throws SQLException, IOException, InterruptedException {
    String url = givenUrl == null ? startEmbedded() : requirePostgres(givenUrl);
    ConsoleBenchReport report = new ConsoleBenchReport(config);
    report.database = givenUrl == null ? "embedded" : ProjectionUrl.describe(url);

    long started = System.nanoTime();
    try (AgentStore store = AgentStores.open(url)) {
      // Opening migrates the schema (Flyway), as a worker does when it starts.
      Objects.requireNonNull(store);
    }
    report.serverVersion = requireNoSessions(url);
    report.migrateSeconds = seconds(started);

    say(
        "seeding %,d sessions and %,d pending approvals (%s)",
        config.sessions(), config.pending(), report.serverVersion);
    ConsoleSeed seed = new ConsoleSeed(config.sessions(), config.pending(), now());
    started = System.nanoTime();
    ConsoleSeed.Seeded seeded = seed.write(url);
    analyze(url);
    report.seedSeconds = seconds(started);
    report.seeded = seeded;

    try (ProjectionReader reader = ProjectionReader.open(url)) {
      checkReadsBack(reader, seed, seeded);
      started = System.nanoTime();
      console = AgentConsole.start(unreachableAgents(), reader, consoleOptions());
      report.consoleStartSeconds = seconds(started);
      say("console at %s (Temporal: %s, never called)", console.url(), UNREACHABLE_TEMPORAL);
      measure(report, reader, url, seeded);
    }
    return report;
  }

  private void measure(
      ConsoleBenchReport report, ProjectionReader reader, String url, ConsoleSeed.Seeded seeded)
      throws IOException, InterruptedException, SQLException {
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    URI base = console.url();

    // The deep page: follow the cursors halfway down the list, as a user paging on would.
    int depth = config.sessions() / PAGE / 2;
    String cursor = null;
    for (int page = 0; page < depth; page++) {
      JsonNode body = get(http, base.resolve(sessionsPath(cursor)));
      cursor = body.get("nextCursor").asText();
    }
    report.deepPageSessions = depth * PAGE;
    String deepCursor = cursor;

    int awaiting = seeded.awaitingApproval();
    long matching = seeded.idsContaining(ID_QUERY);
    int sessions = config.sessions();
    List<Route> routes =
        List.of(
            new Route(
                "inbox",
                "/api/approvals?pending=true",
                body -> checkInbox(body, Math.min(seeded.pending(), INBOX_DEFAULT_LIMIT)),
                () -> reader.approvals(true).size()),
            new Route(
                "sessions",
                sessionsPath(null),
                body -> checkPage(body, sessions - 1),
                () -> reader.sessions(SessionFilter.ALL, null, PAGE).sessions().size()),
            new Route(
                "sessions, page " + (depth + 1),
                sessionsPath(deepCursor),
                body -> checkPage(body, sessions - 1 - depth * PAGE),
                () -> reader.sessions(SessionFilter.ALL, deepCursor, PAGE).sessions().size()),
            new Route(
                "status=awaiting-approval",
                "/api/sessions?status=awaiting-approval&limit=" + PAGE,
                body -> checkFiltered(body, Math.min(PAGE, awaiting), RunStatus.AWAITING_APPROVAL),
                () ->
                    reader
                        .sessions(
                            new SessionFilter(RunStatus.AWAITING_APPROVAL, null, null), null, PAGE)
                        .sessions()
                        .size()),
            new Route(
                "q=" + ID_QUERY,
                "/api/sessions?q=" + ID_QUERY + "&limit=" + PAGE,
                body -> checkSearch(body, (int) Math.min(PAGE, matching)),
                () ->
                    reader
                        .sessions(new SessionFilter(null, null, ID_QUERY), null, PAGE)
                        .sessions()
                        .size()));

    say("warming up: %d rounds of %d routes", config.warmup(), routes.size());
    for (int round = 0; round < config.warmup(); round++) {
      for (Route route : routes) {
        int listed = route.check.applyAsInt(get(http, base.resolve(route.path)));
        int read = route.direct.call();
        require(
            listed == read,
            "%s: the console listed %d, the reader read %d",
            route.name,
            listed,
            read);
      }
    }

    say("timing %d sequential requests per route, interleaved", config.requests());
    long[][] httpNanos = new long[routes.size()][config.requests()];
    int[] items = new int[routes.size()];
    long[] bytes = new long[routes.size()];
    for (int i = 0; i < config.requests(); i++) {
      for (int r = 0; r < routes.size(); r++) {
        Route route = routes.get(r);
        HttpRequest request = HttpRequest.newBuilder(base.resolve(route.path)).GET().build();
        long t0 = System.nanoTime();
        HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        httpNanos[r][i] = System.nanoTime() - t0;
        // Checked after the clock stopped: parsing is the client's time, not the console's.
        items[r] = route.check.applyAsInt(body(request, response));
        bytes[r] = response.body().length;
      }
    }

    say("timing the same reads through ProjectionReader alone");
    long[][] direct = new long[routes.size()][config.requests()];
    for (int i = 0; i < config.requests(); i++) {
      for (int r = 0; r < routes.size(); r++) {
        long t0 = System.nanoTime();
        int n = routes.get(r).direct.call();
        direct[r][i] = System.nanoTime() - t0;
        if (n != items[r]) {
          throw new IllegalStateException(
              routes.get(r).name + ": the reader read " + n + " rows, the console " + items[r]);
        }
      }
    }
    for (int r = 0; r < routes.size(); r++) {
      Route route = routes.get(r);
      report.routes.add(
          new ConsoleBenchReport.RouteFigures(
              route.name,
              "GET " + route.path,
              items[r],
              bytes[r],
              ConsoleBenchReport.Percentiles.of(httpNanos[r]),
              ConsoleBenchReport.Percentiles.of(direct[r])));
    }

    // What a new connection costs, which the reader's pool saves on every read but its first.
    ProjectionUrl parsed = ProjectionUrl.parse(url, "projection");
    long[] connects = new long[config.requests()];
    for (int i = 0; i < connects.length; i++) {
      long t0 = System.nanoTime();
      try (Connection connection = parsed.openReadOnly()) {
        connects[i] = System.nanoTime() - t0;
        Objects.requireNonNull(connection);
      }
    }
    report.connect = ConsoleBenchReport.Percentiles.of(connects);
  }

  /** A route of the console and the reader call it makes. */
  private record Route(
      String name, String path, ToIntFunction<JsonNode> check, DirectRead direct) {}

  @FunctionalInterface
  private interface DirectRead {
    /** The rows read. */
    int call();
  }

  private static String sessionsPath(String cursor) {
    return "/api/sessions?limit="
        + PAGE
        + (cursor == null ? "" : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
  }

  private static JsonNode get(HttpClient http, URI uri) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(uri).GET().build();
    return body(request, http.send(request, HttpResponse.BodyHandlers.ofByteArray()));
  }

  /** The response's JSON; anything but a 200 fails the bench. */
  private static JsonNode body(HttpRequest request, HttpResponse<byte[]> response) {
    String text = new String(response.body(), StandardCharsets.UTF_8);
    if (response.statusCode() != 200) {
      throw new IllegalStateException(
          "GET " + request.uri() + " answered " + response.statusCode() + ": " + text);
    }
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException("GET " + request.uri() + " answered no JSON", e);
    }
  }

  /** Every pending approval the console lists, oldest request first. */
  private static int checkInbox(JsonNode body, int expected) {
    JsonNode approvals = body.get("approvals");
    require(
        approvals.size() == expected,
        "the inbox lists %d approvals, not %d",
        approvals.size(),
        expected);
    long previous = Long.MIN_VALUE;
    for (JsonNode approval : approvals) {
      require(approval.get("status").asText().equals("pending"), "the inbox lists %s", approval);
      long requestedAt = approval.get("requestedAt").asLong();
      require(requestedAt >= previous, "the inbox is not oldest first at %s", approval);
      previous = requestedAt;
    }
    return approvals.size();
  }

  /**
   * A full page that starts at session {@code firstIndex}, newest first, with a cursor after it.
   */
  private static int checkPage(JsonNode body, int firstIndex) {
    JsonNode sessions = body.get("sessions");
    require(sessions.size() == PAGE, "a page of %d sessions, not %d", sessions.size(), PAGE);
    require(
        sessions.get(0).get("sessionId").asText().equals(ConsoleSeed.sessionId(firstIndex)),
        "the page starts at %s, not %s",
        sessions.get(0).get("sessionId"),
        ConsoleSeed.sessionId(firstIndex));
    require(!body.get("nextCursor").isNull(), "no cursor after a full page");
    return newestFirst(sessions, null);
  }

  private static int checkFiltered(JsonNode body, int expected, RunStatus status) {
    JsonNode sessions = body.get("sessions");
    require(
        sessions.size() == expected, "%d %s sessions, not %d", sessions.size(), status, expected);
    return newestFirst(sessions, status);
  }

  private static int checkSearch(JsonNode body, int expected) {
    JsonNode sessions = body.get("sessions");
    require(
        sessions.size() == expected,
        "%d sessions matching %s, not %d",
        sessions.size(),
        ID_QUERY,
        expected);
    for (JsonNode session : sessions) {
      require(
          session.get("sessionId").asText().contains(ID_QUERY), "%s matched %s", session, ID_QUERY);
    }
    return newestFirst(sessions, null);
  }

  private static int newestFirst(JsonNode sessions, RunStatus status) {
    long previous = Long.MAX_VALUE;
    for (JsonNode session : sessions) {
      long updatedAt = session.get("updatedAt").asLong();
      require(updatedAt <= previous, "not newest first at %s", session);
      previous = updatedAt;
      if (status != null) {
        require(session.get("status").asText().equals(status.value()), "%s listed", session);
      }
    }
    return sessions.size();
  }

  /**
   * A few seeded sessions read back through every read a session page makes: the seed must be rows
   * the readers accept, not just rows the lists can count.
   */
  static void checkReadsBack(ProjectionReader reader, ConsoleSeed seed, ConsoleSeed.Seeded seeded) {
    int fork = ConsoleSeed.FORK_EVERY - 1;
    for (int i : new int[] {0, 1, 3, fork, seeded.sessions() - 1}) {
      String id = ConsoleSeed.sessionId(i);
      SessionRow row =
          reader.session(id).orElseThrow(() -> new IllegalStateException("no session " + id));
      require(row.status() == seed.status(i), "%s has status %s", id, row.status());
      List<Message> messages = reader.messages(id, -1);
      require(
          messages.equals(seed.transcript(i, seed.fork(i))),
          "%s reads back another transcript: %s",
          id,
          messages);
      List<HistoryEntry> history = reader.history(id, 0);
      require(
          history.size() == ConsoleSeed.CHECKPOINTS_PER_SESSION,
          "%s has %d history entries",
          id,
          history.size());
      require(
          history.get(0).checkpoint().messages().size() == ConsoleSeed.MESSAGES_PER_SESSION,
          "%s: the newest entry holds %s",
          id,
          history.get(0).checkpoint().messages());
      int approvals = reader.approvals(id, false).size();
      require(
          approvals == (seed.awaiting(i) || seed.decided(i) ? 1 : 0),
          "%s has %d approvals",
          id,
          approvals);
      if (seed.fork(i)) {
        require(
            ConsoleSeed.sessionId(i - 1).equals(row.parentSessionId()),
            "%s is a fork of %s",
            id,
            row.parentSessionId());
        require(reader.forks(ConsoleSeed.sessionId(i - 1)).size() == 1, "%s: no fork", id);
      }
    }
  }

  @FormatMethod
  private static void require(boolean condition, String format, Object... arguments) {
    if (!condition) {
      throw new IllegalStateException(String.format(format, arguments));
    }
  }

  /**
   * An agent client whose Temporal is unreachable: the stubs connect lazily, on the first call, so
   * nothing blocks here, and a route that did call Temporal would fail rather than look fast.
   */
  private AgentClient unreachableAgents() {
    stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(UNREACHABLE_TEMPORAL).build());
    return AgentClient.newInstance(
        WorkflowClient.newInstance(
            stubs, WorkflowClientOptions.newBuilder().setNamespace("default").build()));
  }

  private static ConsoleOptions consoleOptions() {
    return ConsoleOptions.newBuilder().setPort(0).build();
  }

  private String startEmbedded() throws IOException {
    say("starting an embedded PostgreSQL");
    embedded =
        EmbeddedPostgres.builder()
            .setOutputRedirector(ProcessBuilder.Redirect.DISCARD)
            .setErrorRedirector(ProcessBuilder.Redirect.DISCARD)
            .start();
    return "jdbc:postgresql://localhost:" + embedded.getPort() + "/postgres?user=postgres";
  }

  private static String requirePostgres(String url) {
    if (ProjectionUrl.parse(url, "projection").kind() != ProjectionUrl.Kind.POSTGRESQL) {
      throw new IllegalArgumentException(
          "--projection must be a jdbc:postgresql: URL, got " + ProjectionUrl.describe(url));
    }
    return url;
  }

  /**
   * The server's version, after checking the projection holds no session: the bench's counts are of
   * its own rows, and it must never add rows to a database in use.
   */
  private static String requireNoSessions(String url) throws SQLException {
    try (Connection connection = ProjectionUrl.parse(url, "projection").openReadOnly();
        Statement statement = connection.createStatement()) {
      try (ResultSet rows = statement.executeQuery("SELECT count(*) FROM agent_sessions")) {
        rows.next();
        long count = rows.getLong(1);
        if (count > 0) {
          throw new IllegalArgumentException(
              "the projection at "
                  + ProjectionUrl.describe(url)
                  + " holds "
                  + count
                  + " sessions: the console bench seeds its own, into an empty database");
        }
      }
      try (ResultSet rows = statement.executeQuery("SHOW server_version")) {
        rows.next();
        return "PostgreSQL " + rows.getString(1).strip().replaceFirst(" .*", "");
      }
    }
  }

  /** Table statistics now, as autovacuum would gather them soon after a real load. */
  private static void analyze(String url) throws SQLException {
    try (Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement()) {
      statement.execute("ANALYZE");
    }
  }

  @FormatMethod
  private void say(String format, Object... arguments) {
    progress.println("bench console: " + String.format(format, arguments));
    progress.flush();
  }

  private static long now() {
    return System.currentTimeMillis();
  }

  private static double seconds(long startedNanos) {
    return (System.nanoTime() - startedNanos) / 1e9;
  }

  @Override
  public void close() {
    if (console != null) {
      console.close();
    }
    if (stubs != null) {
      stubs.shutdownNow();
    }
    if (embedded != null) {
      try {
        embedded.close();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot stop the embedded PostgreSQL", e);
      }
    }
  }
}
