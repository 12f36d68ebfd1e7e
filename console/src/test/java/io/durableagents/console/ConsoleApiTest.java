package io.durableagents.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.client.AgentClient;
import io.durableagents.client.ApprovalRow;
import io.durableagents.client.ProjectionReader;
import io.durableagents.session.RunStatus;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API on real HTTP: bad input, authentication and CSRF refusals (each leaving the session as it
 * was), lists and their pagination, asynchronous sends and the session's server-sent events.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ConsoleApiTest {
  private static final Duration EVENT_WAIT = Duration.ofSeconds(10);
  private static final String PROXY_HEADER = "X-Forwarded-User";

  @TempDir static Path directory;

  private static ConsoleFixture fixture;
  private static AgentConsole console;
  private static Http http;
  private static Http tokenHttp;
  private static Http proxyHttp;
  private static String doneApproval;
  private static String waitApproval;

  @BeforeAll
  static void start() throws IOException {
    fixture = ConsoleFixture.start();
    console = fixture.console(ConsoleAuth.local());
    http = new Http(console);
    Path tokens = directory.resolve("tokens.txt");
    Files.writeString(tokens, "# approver token\nalice t-alice\nbob t-bob\n");
    tokenHttp = new Http(fixture.console(ConsoleAuth.tokensFile(tokens)));
    proxyHttp = new Http(fixture.console(ConsoleAuth.trustedHeader(PROXY_HEADER)));
    doneApproval = fixture.finished("api-done");
    waitApproval = fixture.awaitingApproval("api-wait");
  }

  @AfterAll
  static void stop() {
    if (fixture != null) {
      fixture.close();
    }
  }

  @Test
  void anUnknownSession_is404Json() {
    assertError(http.get("/api/sessions/nobody-here"), 404, "not_found");
    assertError(http.get("/api/sessions/nobody-here/history"), 404, "not_found");
    assertError(
        http.post("/api/sessions/nobody-here/approvals/a-1", "{\"approved\":true}"),
        404,
        "not_found");
    assertError(http.post("/api/sessions/nobody-here/forks", "{\"fromStep\":0}"), 404, "not_found");
    assertThat(fixture.projection().session("nobody-here")).isEmpty();
  }

  @Test
  void anUnknownApproval_is404() {
    ConsoleFixture.SessionState before = fixture.state("api-wait");
    assertError(
        http.post("/api/sessions/api-wait/approvals/no-such-approval", "{\"approved\":true}"),
        404,
        "not_found");
    assertUnchanged("api-wait", before);
  }

  @Test
  void malformedJson_is400NamingTheBody() {
    ConsoleFixture.SessionState before = fixture.state("api-wait");
    JsonNode error =
        assertError(
            http.post("/api/sessions/api-wait/approvals/" + waitApproval, "{\"approved\": tru"),
            400,
            "bad_request");
    assertThat(error.get("field").textValue()).isEqualTo("body");
    error =
        assertError(
            http.post("/api/sessions/api-wait/approvals/" + waitApproval, "[true]"),
            400,
            "bad_request");
    assertThat(error.get("field").textValue()).isEqualTo("body");
    assertUnchanged("api-wait", before);
  }

  @Test
  void aMissingOrWrongApproved_is400NamingIt() {
    ConsoleFixture.SessionState before = fixture.state("api-wait");
    for (String body : List.of("{\"note\":\"ok\"}", "{\"approved\":\"yes\"}")) {
      JsonNode error =
          assertError(
              http.post("/api/sessions/api-wait/approvals/" + waitApproval, body),
              400,
              "bad_request");
      assertThat(error.get("field").textValue()).as(body).isEqualTo("approved");
    }
    assertUnchanged("api-wait", before);
  }

  @Test
  void anApprovalDecidedAlready_is409WithTheEarlierDecision() {
    ConsoleFixture.SessionState before = fixture.state("api-done");
    JsonNode error =
        assertError(
            http.post(
                "/api/sessions/api-done/approvals/" + doneApproval,
                "{\"approved\":false,\"note\":\"changed my mind\"}"),
            409,
            "approval_decided");
    JsonNode decision = error.get("decision");
    assertThat(decision.get("status").textValue()).isEqualTo("approved");
    assertThat(decision.get("decidedBy").textValue()).isEqualTo("alice");
    assertThat(decision.get("note").textValue()).isEqualTo("looks right");
    assertUnchanged("api-done", before);
    assertThat(fixture.approval("api-done", doneApproval).note()).isEqualTo("looks right");
  }

  @Test
  void aBodyOverOneMebibyte_is413() throws IOException {
    ConsoleFixture.SessionState before = fixture.state("api-wait");
    long tooLong = 1024 * 1024 + 1;
    for (String path :
        List.of(
            "/api/sessions/api-wait/approvals/" + waitApproval,
            "/api/sessions/api-wait/messages")) {
      Http.RawResponse response = http.postAnnouncing(path, tooLong, "{\"approved\":true,\"x\":\"");
      assertThat(response.status()).as(path + ": " + response.body()).isEqualTo(413);
      assertThat(response.headers().get("content-type")).startsWith("application/json");
      assertThat(Http.JSON.readTree(response.body()).get("error").textValue())
          .isEqualTo("payload_too_large");
    }
    assertUnchanged("api-wait", before);
  }

  @Test
  void aSendToASessionAwaitingApproval_is409WithThePendingApproval() {
    ConsoleFixture.SessionState before = fixture.state("api-wait");
    JsonNode error =
        assertError(
            http.post("/api/sessions/api-wait/messages", "{\"input\":\"Any news?\"}"),
            409,
            "awaiting_approval");
    assertThat(error.at("/approval/approvalId").textValue()).isEqualTo(waitApproval);
    assertThat(error.at("/approval/status").textValue()).isEqualTo("pending");
    assertThat(error.at("/approval/toolName").textValue()).isEqualTo("refund");
    assertUnchanged("api-wait", before);
  }

  @Test
  void aFormPost_is403Csrf() {
    ConsoleFixture.SessionState before = fixture.state("api-wait");
    HttpResponse<String> response =
        http.send(
            http.request("/api/sessions/api-wait/approvals/" + waitApproval)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("approved=true")));
    assertError(response, 403, "csrf");
    assertUnchanged("api-wait", before);
  }

  @Test
  void aPostWithTheCsrfCookieButNoHeader_is403() {
    ConsoleFixture.SessionState before = fixture.state("api-wait");
    String path = "/api/sessions/api-wait/approvals/" + waitApproval;
    assertError(http.post(path, "{\"approved\":true}", "Cookie", "agents_csrf=c-123"), 403, "csrf");
    assertError(
        http.post(
            path, "{\"approved\":true}", "Cookie", "agents_csrf=c-123", "X-CSRF-Token", "c-999"),
        403,
        "csrf");
    // Another site's script: JSON without cookies, but from another origin.
    assertError(
        http.post(path, "{\"approved\":true}", "Origin", "https://evil.example"), 403, "csrf");
    assertUnchanged("api-wait", before);
  }

  @Test
  void aPostWithTheCsrfCookieAndTheMatchingHeader_isDecided() {
    String approvalId = fixture.awaitingApproval("api-csrf");
    HttpResponse<String> response =
        http.post(
            "/api/sessions/api-csrf/approvals/" + approvalId,
            "{\"approved\":true,\"note\":\"via the page\"}",
            "Cookie",
            "agents_csrf=c-123",
            "X-CSRF-Token",
            "c-123");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(Http.json(response).at("/outcome/outcome").textValue()).isEqualTo("approved");
    assertThat(fixture.decided("api-csrf", approvalId).status().value()).isEqualTo("approved");
  }

  @Test
  void tokenAuth_refusesNoTokenAndAWrongOne() {
    ConsoleFixture.SessionState before = fixture.state("api-wait");
    String path = "/api/sessions/api-wait/approvals/" + waitApproval;
    assertError(tokenHttp.get("/api/sessions"), 401, "unauthorized");
    assertError(
        tokenHttp.get("/api/sessions", "Authorization", "Bearer t-mallory"), 401, "unauthorized");
    assertError(tokenHttp.post(path, "{\"approved\":true}"), 401, "unauthorized");
    assertError(
        tokenHttp.post(path, "{\"approved\":true}", "Authorization", "Bearer t-mallory"),
        401,
        "unauthorized");
    assertUnchanged("api-wait", before);
  }

  @Test
  void tokenAuth_decidedByIsTheTokensApprover_notTheBodysField() {
    String approvalId = fixture.awaitingApproval("api-token");
    HttpResponse<String> response =
        tokenHttp.post(
            "/api/sessions/api-token/approvals/" + approvalId,
            "{\"approved\":false,\"note\":\"too much\",\"decidedBy\":\"mallory\"}",
            "Authorization",
            "Bearer t-bob");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(Http.json(response).get("decidedBy").textValue()).isEqualTo("bob");
    ApprovalRow row = fixture.decided("api-token", approvalId);
    assertThat(row.status().value()).isEqualTo("rejected");
    assertThat(row.decidedBy()).isEqualTo("bob");
    assertThat(row.note()).isEqualTo("too much");
  }

  @Test
  void trustedHeaderAuth_needsTheHeader_andNamesTheCaller() {
    assertError(proxyHttp.get("/api/me"), 401, "unauthorized");
    assertError(proxyHttp.get("/api/me", PROXY_HEADER, " "), 401, "unauthorized");
    JsonNode me = Http.json(proxyHttp.get("/api/me", PROXY_HEADER, "carol"));
    assertThat(me.get("identity").textValue()).isEqualTo("carol");
    assertThat(me.get("auth").textValue()).isEqualTo("proxy");
  }

  @Test
  void login_setsAnHttpOnlyCookie_thatAuthenticatesTheCaller() {
    HttpResponse<String> refused = tokenHttp.post("/api/login", "{\"token\":\"t-mallory\"}");
    assertError(refused, 401, "unauthorized");
    assertThat(refused.headers().allValues("Set-Cookie")).isEmpty();

    String setCookie = loginSetCookie(tokenHttp, "t-alice");
    assertThat(setCookie).containsIgnoringCase("HttpOnly").containsIgnoringCase("SameSite=Strict");
    String cookie = setCookie.substring(0, setCookie.indexOf(';'));

    JsonNode me = Http.json(tokenHttp.get("/api/me", "Cookie", cookie));
    assertThat(me.get("identity").textValue()).isEqualTo("alice");
    assertThat(me.get("auth").textValue()).isEqualTo("token");
    assertError(tokenHttp.get("/api/me", "Cookie", "agents_session=forged"), 401, "unauthorized");
  }

  @Test
  void logout_endsTheLogin_andClearsItsCookie() {
    String cookie = loginCookie(tokenHttp, "t-bob");
    assertThat(Http.json(tokenHttp.get("/api/me", "Cookie", cookie)).get("identity").textValue())
        .isEqualTo("bob");

    // A page's post: the login and CSRF cookies, and the CSRF token echoed.
    HttpResponse<String> logout =
        tokenHttp.post(
            "/api/logout", "{}", "Cookie", cookie + "; agents_csrf=c-1", "X-CSRF-Token", "c-1");
    assertThat(logout.statusCode()).as(logout.body()).isEqualTo(204);
    assertThat(logout.headers().allValues("Set-Cookie"))
        .anySatisfy(
            value ->
                assertThat(value)
                    .startsWith("agents_session=;")
                    .contains("Expires=Thu, 01 Jan 1970 00:00:00 GMT"));
    assertError(tokenHttp.get("/api/me", "Cookie", cookie), 401, "unauthorized");

    // Another site cannot log a page out: the post without the CSRF token is refused.
    String other = loginCookie(tokenHttp, "t-bob");
    assertError(
        tokenHttp.post("/api/logout", "{}", "Cookie", other + "; agents_csrf=c-2"), 403, "csrf");
    assertThat(Http.json(tokenHttp.get("/api/me", "Cookie", other)).get("identity").textValue())
        .isEqualTo("bob");
  }

  @Test
  void aTokenRemovedFromTheFile_isRefused_withItsLogins_andAnAddedOneWorks() throws IOException {
    Path tokens = directory.resolve("changing-tokens.txt");
    Files.writeString(tokens, "erin t-erin\nfrank t-frank\n");
    Http changing = new Http(fixture.console(ConsoleAuth.tokensFile(tokens)));
    String erinsLogin = loginCookie(changing, "t-erin");
    assertThat(changing.get("/api/me", "Cookie", erinsLogin).statusCode()).isEqualTo(200);

    rewrite(tokens, "frank t-frank\ngrace t-grace\n");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertError(
                    changing.get("/api/me", "Authorization", "Bearer t-erin"),
                    401,
                    "unauthorized"));
    assertThat(
            assertError(changing.get("/api/me", "Cookie", erinsLogin), 401, "unauthorized")
                .get("message")
                .textValue())
        .contains("no longer valid");
    assertThat(
            Http.json(changing.get("/api/me", "Authorization", "Bearer t-grace")).get("identity"))
        .hasToString("\"grace\"");

    // A half-written file (a line that is no pair) is ignored: the tokens read before stay.
    rewrite(tokens, "frank\n");
    await()
        .during(Duration.ofMillis(1500))
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> changing.get("/api/me", "Authorization", "Bearer t-grace").statusCode() == 200);
    assertThat(changing.get("/api/me", "Authorization", "Bearer t-frank").statusCode())
        .isEqualTo(200);
  }

  /** Writes {@code text} to {@code file} with a modification time that is sure to differ. */
  private static void rewrite(Path file, String text) throws IOException {
    FileTime before = Files.getLastModifiedTime(file);
    Files.writeString(file, text);
    Files.setLastModifiedTime(file, FileTime.fromMillis(before.toMillis() + 2_000));
  }

  @Test
  void aLogin_expiresAfterTheLoginTimeout_butBearerTokensDoNot() throws IOException {
    Path tokens = directory.resolve("short-tokens.txt");
    Files.writeString(tokens, "dave t-dave\n");
    Http shortHttp =
        new Http(
            fixture.console(
                ConsoleOptions.newBuilder()
                    .setAuthentication(ConsoleAuth.tokensFile(tokens))
                    .setLoginTimeout(Duration.ofMillis(500))));
    HttpResponse<String> login = shortHttp.post("/api/login", "{\"token\":\"t-dave\"}");
    assertThat(login.headers().allValues("Set-Cookie"))
        .as("the browser forgets the cookie when the login ends, rounded up to a second")
        .anySatisfy(
            value ->
                assertThat(value).startsWith("agents_session=").containsIgnoringCase("Max-Age=1"));
    String cookie = loginCookie(shortHttp, "t-dave");
    assertThat(shortHttp.get("/api/me", "Cookie", cookie).statusCode()).isEqualTo(200);
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(
                        assertError(shortHttp.get("/api/me", "Cookie", cookie), 401, "unauthorized")
                            .get("message")
                            .textValue())
                    .contains("expired"));
    assertThat(shortHttp.get("/api/me", "Authorization", "Bearer t-dave").statusCode())
        .isEqualTo(200);
  }

  @Test
  void theLoginTimeout_mustBePositive() {
    ConsoleOptions.Builder options = ConsoleOptions.newBuilder();
    assertThatThrownBy(() -> options.setLoginTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("loginTimeout");
  }

  @Test
  void localAuth_refusesToBindAnAddressOtherMachinesReach() {
    ConsoleOptions options =
        ConsoleOptions.newBuilder()
            .setBind("0.0.0.0")
            .setPort(0)
            .setAuthentication(ConsoleAuth.local())
            .build();
    AgentClient client = fixture.client();
    ProjectionReader projection = fixture.projection();
    assertThatThrownBy(() -> AgentConsole.start(client, projection, options).close())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0.0.0.0");
  }

  @Test
  void sessions_pageByCursor_withoutRepeats() {
    for (int i = 1; i <= 3; i++) {
      fixture.awaitingApproval("paged-" + i);
    }
    List<String> expected = ids(Http.json(http.get("/api/sessions?q=paged-&limit=500")));
    assertThat(expected).containsExactlyInAnyOrder("paged-1", "paged-2", "paged-3");

    List<String> seen = new ArrayList<>();
    String cursor = null;
    for (int page = 0; page < 10; page++) {
      String path = "/api/sessions?q=paged-&limit=1" + (cursor == null ? "" : "&cursor=" + cursor);
      HttpResponse<String> response = http.get(path);
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      JsonNode body = Http.json(response);
      assertThat(body.get("sessions")).hasSize(1);
      seen.addAll(ids(body));
      if (body.get("nextCursor").isNull()) {
        break;
      }
      cursor = body.get("nextCursor").textValue();
    }
    assertThat(seen).as("pages in order, none repeated").isEqualTo(expected);
    assertError(http.get("/api/sessions?cursor=not-a-cursor"), 400, "bad_request");
  }

  @Test
  void sessions_filterByStatusAgentAndId() {
    fixture.awaitingApproval("filtered-support", ConsoleFixture.SUPPORT);
    JsonNode awaiting = Http.json(http.get("/api/sessions?status=awaiting-approval&limit=500"));
    assertThat(awaiting.findValuesAsText("status")).containsOnly("awaiting-approval");
    assertThat(ids(awaiting)).contains("api-wait").doesNotContain("api-done");

    JsonNode finished = Http.json(http.get("/api/sessions?status=finished&limit=500"));
    assertThat(finished.findValuesAsText("status")).containsOnly("finished");
    assertThat(ids(finished)).contains("api-done").doesNotContain("api-wait");

    JsonNode support = Http.json(http.get("/api/sessions?agent=support&limit=500"));
    assertThat(support.findValuesAsText("agent")).containsOnly("support");
    assertThat(ids(support)).contains("filtered-support").doesNotContain("api-wait");

    JsonNode byId = Http.json(http.get("/api/sessions?q=api-d&limit=500"));
    assertThat(ids(byId)).containsExactly("api-done");

    JsonNode error = assertError(http.get("/api/sessions?status=sleeping"), 400, "bad_request");
    assertThat(error.get("field").textValue()).isEqualTo("status");
  }

  @Test
  void approvals_pendingOldestFirst() {
    fixture.awaitingApproval("approvals-later");
    JsonNode pending = Http.json(http.get("/api/approvals")).get("approvals");
    List<Long> requested = new ArrayList<>();
    List<String> sessions = new ArrayList<>();
    for (JsonNode approval : pending) {
      assertThat(approval.get("status").textValue()).isEqualTo("pending");
      requested.add(approval.get("requestedAt").longValue());
      sessions.add(approval.get("sessionId").textValue());
    }
    assertThat(requested).isSorted();
    assertThat(sessions).contains("api-wait", "approvals-later").doesNotContain("api-done");
    assertThat(sessions.indexOf("api-wait")).isLessThan(sessions.indexOf("approvals-later"));

    JsonNode all = Http.json(http.get("/api/approvals?pending=false")).get("approvals");
    assertThat(all.findValuesAsText("approvalId")).contains(doneApproval, waitApproval);
  }

  @Test
  void approvals_pageByCursor_oldestFirst_withoutRepeats() {
    fixture.awaitingApproval("approvals-paged-1");
    fixture.awaitingApproval("approvals-paged-2");
    for (String pending : List.of("true", "false")) {
      JsonNode whole = Http.json(http.get("/api/approvals?pending=" + pending));
      assertThat(whole.get("nextCursor").isNull()).as("one page holds them all").isTrue();
      List<String> expected = whole.get("approvals").findValuesAsText("approvalId");
      assertThat(expected.size()).isGreaterThanOrEqualTo(2);

      List<String> seen = new ArrayList<>();
      String cursor = null;
      for (int page = 0; page <= expected.size(); page++) {
        String path =
            "/api/approvals?pending="
                + pending
                + "&limit=1"
                + (cursor == null ? "" : "&cursor=" + cursor);
        JsonNode body = Http.json(http.get(path));
        assertThat(body.get("approvals")).as(path).hasSize(1);
        seen.addAll(body.get("approvals").findValuesAsText("approvalId"));
        if (body.get("nextCursor").isNull()) {
          break;
        }
        cursor = body.get("nextCursor").textValue();
      }
      assertThat(seen).as("pending=%s: pages in order, none repeated", pending).isEqualTo(expected);
    }
    JsonNode error = assertError(http.get("/api/approvals?cursor=bm9wZQ"), 400, "bad_request");
    assertThat(error.get("field").textValue()).isEqualTo("cursor");
    assertError(http.get("/api/approvals?limit=10001"), 400, "bad_request");
  }

  @Test
  void aSendThatDoesNotWait_is202WithALocation() {
    HttpResponse<String> response =
        http.post("/api/sessions/api-async/messages?wait=false", "{\"input\":\"Refund A-17\"}");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
    assertThat(response.headers().firstValue("Location")).hasValue("/api/sessions/api-async");
    JsonNode body = Http.json(response);
    assertThat(body.get("sessionId").textValue()).isEqualTo("api-async");
    assertThat(body.get("location").textValue()).isEqualTo("/api/sessions/api-async");
    // The session took the input: its run goes on to the gated call.
    fixture.awaitStatus("api-async", RunStatus.AWAITING_APPROVAL);
  }

  @Test
  void events_statusByStep_resumeAfterLastEventId_andDeltas() throws IOException {
    int lastStep = fixture.projection().session("api-done").orElseThrow().lastStep();
    List<Integer> steps = new ArrayList<>();
    try (SseStream events = SseStream.connect(http, "/api/sessions/api-done/events")) {
      assertThat(events.response.statusCode()).isEqualTo(200);
      steps.addAll(statusStepsUpTo(events, lastStep));
    }
    assertThat(steps).as("ids are the steps, ascending").isSorted().doesNotHaveDuplicates();
    assertThat(steps).hasSizeGreaterThanOrEqualTo(2).endsWith(lastStep);

    int resumeAfter = steps.get(steps.size() / 2 - 1);
    try (SseStream events =
        SseStream.connect(
            http,
            "/api/sessions/api-done/events",
            "Last-Event-ID",
            Integer.toString(resumeAfter))) {
      List<Integer> resumed = statusStepsUpTo(events, lastStep);
      assertThat(resumed.get(0)).isGreaterThan(resumeAfter);
      assertThat(resumed).allSatisfy(step -> assertThat(step).isGreaterThan(resumeAfter));
      assertThat(resumed).isEqualTo(steps.subList(steps.indexOf(resumeAfter) + 1, steps.size()));

      console.publishDelta("api-done", lastStep + 1, 1, "text", "Sunny in");
      SseStream.Event delta = events.next(EVENT_WAIT);
      assertThat(delta.event()).isEqualTo("delta");
      assertThat(delta.id()).isNull();
      JsonNode data = Http.JSON.readTree(delta.data());
      assertThat(data.get("text").textValue()).isEqualTo("Sunny in");
      assertThat(data.get("kind").textValue()).isEqualTo("text");
      assertThat(data.get("sessionId").textValue()).isEqualTo("api-done");
    }
  }

  /** The steps of the status events, read until the one of {@code lastStep}. */
  private static List<Integer> statusStepsUpTo(SseStream events, int lastStep) throws IOException {
    List<Integer> steps = new ArrayList<>();
    Set<Integer> seen = new HashSet<>();
    int step;
    do {
      SseStream.Event event = events.next(EVENT_WAIT);
      assertThat(event.event()).isEqualTo("status");
      step = Http.JSON.readTree(event.data()).get("step").intValue();
      assertThat(event.id()).isEqualTo(Integer.toString(step));
      assertThat(seen.add(step)).as("step %s sent once", step).isTrue();
      steps.add(step);
    } while (step < lastStep);
    return steps;
  }

  private static List<String> ids(JsonNode page) {
    List<String> ids = new ArrayList<>();
    page.get("sessions").forEach(row -> ids.add(row.get("sessionId").textValue()));
    return ids;
  }

  /** The refusal's JSON body, after checking its status and error code. */
  private static JsonNode assertError(HttpResponse<String> response, int status, String code) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    assertThat(response.headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
    JsonNode body = Http.json(response);
    assertThat(body.get("error").textValue()).as(response.body()).isEqualTo(code);
    assertThat(body.get("message").isTextual()).isTrue();
    return body;
  }

  /** A refusal changed nothing: same status, steps, messages and pending approvals. */
  private static void assertUnchanged(String sessionId, ConsoleFixture.SessionState before) {
    assertThat(fixture.state(sessionId)).isEqualTo(before);
    if (before.status() == RunStatus.AWAITING_APPROVAL) {
      // The session itself still waits, not only its projection.
      await()
          .during(Duration.ofMillis(300))
          .atMost(Duration.ofSeconds(2))
          .until(
              () ->
                  fixture.client().status(sessionId).orElseThrow().status()
                      == RunStatus.AWAITING_APPROVAL);
    }
  }

  /** Logs in with {@code token}; answers the login cookie, {@code agents_session=...}. */
  private static String loginCookie(Http client, String token) {
    String setCookie = loginSetCookie(client, token);
    return setCookie.substring(0, setCookie.indexOf(';'));
  }

  /** Logs in with {@code token}; answers the Set-Cookie header of the login cookie. */
  private static String loginSetCookie(Http client, String token) {
    HttpResponse<String> login = client.post("/api/login", "{\"token\":\"" + token + "\"}");
    assertThat(login.statusCode()).as(login.body()).isEqualTo(200);
    return login.headers().allValues("Set-Cookie").stream()
        .filter(value -> value.startsWith("agents_session="))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no session cookie: " + login.headers()));
  }
}
