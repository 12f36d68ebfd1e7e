package io.durableagents.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import io.durableagents.client.SessionRow;
import io.durableagents.session.RunStatus;
import io.javalin.Javalin;
import io.javalin.http.HandlerType;
import io.javalin.router.Endpoint;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The console's real answers against its OpenAPI document: every route is called over HTTP, and
 * every body is validated with the schema the document gives that path, method and status.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class OpenApiContractTest {
  private static final Duration EVENT_WAIT = Duration.ofSeconds(10);

  private static ConsoleFixture fixture;
  private static AgentConsole console;
  private static Http http;
  private static Http tokenHttp;
  private static ApiDocument api;

  private final Set<String> called = new LinkedHashSet<>();

  @BeforeAll
  static void startConsole() {
    fixture = ConsoleFixture.start();
    console = fixture.console(ConsoleAuth.local());
    http = new Http(console);
    tokenHttp = new Http(fixture.console(ConsoleAuth.tokens(Map.of("t-alice", "alice"))));
    api = ApiDocument.load();
  }

  @AfterAll
  static void stop() {
    if (fixture != null) {
      fixture.close();
    }
  }

  @Test
  void everyRouteAnswersWhatTheDocumentSays() throws IOException {
    String decidedApproval = fixture.finished("contract-done");
    String pendingApproval = fixture.awaitingApproval("contract-wait", ConsoleFixture.SUPPORT);
    fixture.awaitingApproval("contract-cancel");
    fixture.awaitingApproval("contract-close");
    fixture.finished("contract-reset");

    // The document the console serves is this resource, and it is an object.
    HttpResponse<String> served = http.get("/api/openapi.json");
    assertThat(check("GET", "/api/openapi.json", served)).isEqualTo(api.document());

    check("GET", "/api/sessions", http.get("/api/sessions"));
    JsonNode page = check("GET", "/api/sessions", http.get("/api/sessions?limit=1"));
    assertThat(page.get("nextCursor").isTextual()).isTrue();
    check("GET", "/api/sessions", http.get("/api/sessions?limit=0"), 400);
    check("GET", "/api/sessions", tokenHttp.get("/api/sessions"), 401);

    JsonNode detail = check("GET", "/api/sessions/{id}", http.get("/api/sessions/contract-done"));
    assertThat(detail.at("/session/status").textValue()).isEqualTo("finished");
    assertThat(detail.get("approvals")).isNotEmpty();
    check("GET", "/api/sessions/{id}", http.get("/api/sessions/contract-wait"));
    check("GET", "/api/sessions/{id}", http.get("/api/sessions/nobody-here"), 404);
    check("GET", "/api/sessions/{id}", http.get("/api/sessions/bad%20id"), 400);

    JsonNode history =
        check("GET", "/api/sessions/{id}/history", http.get("/api/sessions/contract-done/history"));
    assertThat(history.get("entries")).isNotEmpty();
    // The timeline's steps: timed model turns (and the tool call the approval let run).
    List<JsonNode> timedSteps = new ArrayList<>();
    history.get("entries").forEach(entry -> entry.get("steps").forEach(timedSteps::add));
    assertThat(timedSteps)
        .extracting(step -> step.get("kind").textValue())
        .contains("model", "tool");
    assertThat(timedSteps)
        .filteredOn(step -> step.get("kind").textValue().equals("model"))
        .allSatisfy(step -> assertThat(step.get("durationMs").isIntegralNumber()).isTrue());
    check("GET", "/api/sessions/{id}/history", http.get("/api/sessions/nobody-here/history"), 404);

    JsonNode pending = check("GET", "/api/approvals", http.get("/api/approvals"));
    assertThat(pending.get("approvals")).isNotEmpty();
    JsonNode all = check("GET", "/api/approvals", http.get("/api/approvals?pending=false"));
    assertThat(all.findValuesAsText("status")).contains("approved", "pending");
    check("GET", "/api/approvals", http.get("/api/approvals?pending=maybe"), 400);

    String decide = "/api/sessions/{id}/approvals/{approvalId}";
    check(
        "POST",
        decide,
        http.post(
            "/api/sessions/contract-done/approvals/" + decidedApproval, "{\"approved\":true}"),
        409);
    check(
        "POST",
        decide,
        http.post("/api/sessions/contract-wait/approvals/" + pendingApproval, "{\"approved\":"),
        400);
    check(
        "POST",
        decide,
        http.send(
            http.request("/api/sessions/contract-wait/approvals/" + pendingApproval)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("approved=true"))),
        403);
    Http.RawResponse tooLarge =
        http.postAnnouncing(
            "/api/sessions/contract-wait/approvals/" + pendingApproval, 1024 * 1024 + 1, "{");
    check(
        "POST",
        decide,
        tooLarge.status(),
        tooLarge.headers().get("content-type"),
        tooLarge.body(),
        413);
    check(
        "POST",
        decide,
        http.post("/api/sessions/contract-wait/approvals/no-such-approval", "{\"approved\":true}"),
        404);
    String send = "/api/sessions/{id}/messages";
    check(
        "POST", send, http.post("/api/sessions/contract-wait/messages", "{\"input\":\"hi\"}"), 409);
    check("POST", send, http.post("/api/sessions/contract-wait/messages", "{}"), 400);

    JsonNode decision =
        check(
            "POST",
            decide,
            http.post(
                "/api/sessions/contract-wait/approvals/" + pendingApproval,
                "{\"approved\":true,\"note\":\"fine\"}"));
    assertThat(decision.at("/outcome/outcome").textValue()).isEqualTo("approved");
    fixture.client().awaitRun("contract-wait");
    fixture.awaitStatus("contract-wait", RunStatus.FINISHED);

    JsonNode run =
        check(
            "POST",
            send,
            http.post("/api/sessions/contract-wait/messages", "{\"input\":\"Thanks\"}"));
    assertThat(run.get("status").textValue()).isEqualTo("finished");
    JsonNode accepted =
        check(
            "POST",
            send,
            http.post(
                "/api/sessions/contract-async/messages?wait=false", "{\"input\":\"Refund A-17\"}"),
            202);
    assertThat(accepted.get("sessionId").textValue()).isEqualTo("contract-async");

    check(
        "POST", "/api/sessions/{id}/cancel", http.post("/api/sessions/contract-cancel/cancel", ""));

    String close = "/api/sessions/{id}/close";
    check("POST", close, http.post("/api/sessions/contract-close/close", ""), 409);
    JsonNode closed =
        check("POST", close, http.post("/api/sessions/contract-close/close?force=true", ""));
    assertThat(closed.get("lifecycle").textValue()).isEqualTo("closed");
    check("POST", close, http.post("/api/sessions/contract-close/close?force=maybe", ""), 400);
    check("POST", close, http.post("/api/sessions/nobody-here/close", ""), 404);
    check(
        "POST",
        "/api/sessions/{id}/delete",
        http.post("/api/sessions/contract-close/delete?keepHistory=1", ""),
        400);

    String reset = "/api/sessions/{id}/reset";
    List<Integer> steps =
        fixture.projection().history("contract-reset", 0).stream()
            .map(io.durableagents.client.HistoryEntry::step)
            .sorted()
            .toList();
    check("POST", reset, http.post("/api/sessions/contract-reset/reset", "{\"step\":999}"), 404);
    check("POST", reset, http.post("/api/sessions/contract-reset/reset", "{}"), 400);
    JsonNode moved =
        check(
            "POST",
            reset,
            http.post("/api/sessions/contract-reset/reset", "{\"step\":" + steps.get(0) + "}"));
    assertThat(moved.get("resetTo").intValue()).isEqualTo(steps.get(0));
    // The newest entry before the reset is superseded now: it is no reset target any more.
    check(
        "POST",
        reset,
        http.post(
            "/api/sessions/contract-reset/reset", "{\"step\":" + steps.get(steps.size() - 1) + "}"),
        400);
    check("POST", reset, http.post("/api/sessions/nobody-here/reset", "{\"step\":1}"), 404);

    SessionRow done = fixture.projection().session("contract-done").orElseThrow();
    String forks = "/api/sessions/{id}/forks";
    JsonNode fork =
        check(
            "POST",
            forks,
            http.post(
                "/api/sessions/contract-done/forks",
                "{\"fromStep\":"
                    + done.lastStep()
                    + ",\"patch\":{\"appendInput\":\"And now?\"},\"newSessionId\":\"contract-fork\"}"),
            201);
    assertThat(fork.get("sessionId").textValue()).isEqualTo("contract-fork");
    check(
        "POST", forks, http.post("/api/sessions/contract-done/forks", "{\"fromStep\":\"1\"}"), 400);
    check("POST", forks, http.post("/api/sessions/contract-done/forks", "{\"fromStep\":999}"), 404);
    JsonNode taken =
        check(
            "POST",
            forks,
            http.post(
                "/api/sessions/contract-done/forks",
                "{\"fromStep\":" + done.lastStep() + ",\"newSessionId\":\"contract-wait\"}"),
            409);
    assertThat(taken.get("error").textValue()).isEqualTo("session_exists");
    fixture.client().awaitRun("contract-fork");
    fixture.awaitStatus("contract-fork", RunStatus.FINISHED);
    JsonNode forkDetail =
        check("GET", "/api/sessions/{id}", http.get("/api/sessions/contract-fork"));
    assertThat(forkDetail.at("/lineage/parent/sessionId").textValue()).isEqualTo("contract-done");
    check("GET", "/api/sessions/{id}", http.get("/api/sessions/contract-done"));

    String compare = "/api/sessions/{id}/compare/{otherId}";
    JsonNode comparison =
        check("GET", compare, http.get("/api/sessions/contract-done/compare/contract-fork"));
    assertThat(comparison.get("stepsB").size()).isGreaterThan(comparison.get("stepsA").size());
    check("GET", compare, http.get("/api/sessions/contract-done/compare/nobody-here"), 404);

    checkEvents("contract-done");

    check("GET", "/api/me", http.get("/api/me"));
    check("GET", "/api/me", tokenHttp.get("/api/me"), 401);
    check("GET", "/api/me", tokenHttp.get("/api/me", "Authorization", "Bearer t-alice"));
    check("POST", "/api/login", tokenHttp.post("/api/login", "{\"token\":\"t-alice\"}"));
    check("POST", "/api/login", tokenHttp.post("/api/login", "{\"token\":\"t-mallory\"}"), 401);
    check("POST", "/api/login", http.post("/api/login", "{\"token\":\"t-alice\"}"), 400);
    check("POST", "/api/logout", tokenHttp.post("/api/logout", "{}"), 204);
    check(
        "POST",
        "/api/logout",
        tokenHttp.post("/api/logout", "{}", "Cookie", "agents_session=x; agents_csrf=y"),
        403);

    assertThat(called)
        .as("the routes this test calls are the documented ones")
        .containsExactlyInAnyOrderElementsOf(api.operations());
  }

  /** Status events (ids are steps) and a delta, each data validated with its documented schema. */
  private void checkEvents(String sessionId) throws IOException {
    String path = "/api/sessions/{id}/events";
    called.add("GET " + path);
    JsonNode eventsResponse = api.response("GET", path, 200);
    assertThat(eventsResponse.at("/content/text~1event-stream").isObject()).isTrue();
    JsonSchema statusSchema = api.component("StatusEvent");
    JsonSchema deltaSchema = api.component("DeltaEvent");
    int lastStep = fixture.projection().session(sessionId).orElseThrow().lastStep();
    try (SseStream events = SseStream.connect(http, "/api/sessions/" + sessionId + "/events")) {
      assertThat(events.response.statusCode()).isEqualTo(200);
      assertThat(events.response.headers().firstValue("Content-Type"))
          .hasValueSatisfying(type -> assertThat(type).startsWith("text/event-stream"));
      SseStream.Event event;
      do {
        event = events.next(EVENT_WAIT);
        assertThat(event.event()).isEqualTo("status");
        JsonNode data = Http.JSON.readTree(event.data());
        assertThat(ApiDocument.problems(statusSchema, data)).as("status %s", data).isEmpty();
        assertThat(event.id()).isEqualTo(data.get("step").asText());
      } while (Integer.parseInt(event.id()) < lastStep);
      console.publishDelta(sessionId, lastStep + 1, 1, "text", "Sunny in");
      SseStream.Event delta = events.next(EVENT_WAIT);
      assertThat(delta.event()).isEqualTo("delta");
      JsonNode data = Http.JSON.readTree(delta.data());
      assertThat(ApiDocument.problems(deltaSchema, data)).as("delta %s", data).isEmpty();
    }
    HttpResponse<String> unauthorized =
        tokenHttp.get("/api/sessions/" + sessionId + "/events", "Accept", "text/event-stream");
    check("GET", path, unauthorized, 401);
    for (String id : new String[] {"bad%20id", "nobody-here"}) {
      HttpResponse<String> refused =
          http.get("/api/sessions/" + id + "/events", "Accept", "text/event-stream");
      check("GET", path, refused, id.equals("nobody-here") ? 404 : 400);
    }
  }

  @Test
  void aSessionRecoveringFromAWorkerFailure_isA503WithRetryAfter_inTheProductsWords() {
    String approvalId = fixture.awaitingApproval("contract-recovering");
    Http recovering =
        new Http(
            fixture.console(
                fixture.recoveringClient(Duration.ofMillis(300)), ConsoleOptions.newBuilder()));
    String decide = "/api/sessions/{id}/approvals/{approvalId}";
    String send = "/api/sessions/{id}/messages";

    checkRecovering(
        "POST",
        decide,
        recovering.post(
            "/api/sessions/contract-recovering/approvals/" + approvalId, "{\"approved\":true}"));
    checkRecovering(
        "POST",
        send,
        recovering.post("/api/sessions/contract-recovering/messages", "{\"input\":\"hello?\"}"));
    checkRecovering(
        "POST",
        send,
        recovering.post(
            "/api/sessions/contract-recovering/messages?wait=false", "{\"input\":\"hello?\"}"));

    // Refused, so nothing changed: the session waits for the same decision.
    assertThat(fixture.pendingApprovalIds("contract-recovering")).containsExactly(approvalId);
  }

  private void checkRecovering(String method, String path, HttpResponse<String> response) {
    JsonNode body = check(method, path, response, 503);
    assertThat(body.get("error").textValue()).isEqualTo("session_recovering");
    assertThat(body.get("message").textValue())
        .contains("'contract-recovering' is recovering from a worker failure")
        .doesNotContain("FAILED_PRECONDITION", "io.grpc", "failed state");
    assertThat(response.headers().firstValue("Retry-After")).hasValue("10");
    assertThat(api.response(method, path, 503).path("headers").has("Retry-After")).isTrue();
  }

  @Test
  void theDocumentedRoutesAreTheConsolesRoutes() throws ReflectiveOperationException {
    // The server's own route table: a route added without a document entry fails here.
    Field field = AgentConsole.class.getDeclaredField("server");
    field.setAccessible(true);
    Javalin server = (Javalin) field.get(console);
    Set<String> routes =
        server.unsafe.internalRouter.allHttpHandlers().stream()
            .map(parsed -> parsed.endpoint)
            .filter(endpoint -> endpoint.path.startsWith("/api/"))
            .filter(
                endpoint ->
                    HandlerType.GET.equals(endpoint.method)
                        || HandlerType.POST.equals(endpoint.method))
            .map(OpenApiContractTest::operation)
            .collect(Collectors.toCollection(LinkedHashSet::new));
    assertThat(routes).isNotEmpty();
    assertThat(api.operations()).containsExactlyInAnyOrderElementsOf(routes);
  }

  private static String operation(Endpoint endpoint) {
    return endpoint.method.name() + " " + endpoint.path;
  }

  @Test
  void theSchemasRejectAWrongTypeAMissingFieldAndAnUnknownOne() {
    fixture.awaitingApproval("contract-mutated");
    JsonSchema schema = api.responseSchema("GET", "/api/sessions/{id}", 200, "application/json");
    ObjectNode body = (ObjectNode) Http.json(http.get("/api/sessions/contract-mutated"));
    assertThat(ApiDocument.problems(schema, body)).isEmpty();

    ObjectNode wrongType = body.deepCopy();
    ((ObjectNode) wrongType.get("session")).put("lastStep", "three");
    assertThat(ApiDocument.problems(schema, wrongType)).isNotEmpty();

    ObjectNode missing = body.deepCopy();
    ((ObjectNode) missing.get("approvals").get(0)).remove("toolName");
    assertThat(ApiDocument.problems(schema, missing)).isNotEmpty();

    ObjectNode badStatus = body.deepCopy();
    ((ObjectNode) badStatus.get("approvals").get(0)).put("status", "maybe");
    assertThat(ApiDocument.problems(schema, badStatus)).isNotEmpty();

    ObjectNode unknown = body.deepCopy();
    unknown.put("surprise", true);
    assertThat(ApiDocument.problems(schema, unknown)).isNotEmpty();
  }

  private JsonNode check(String method, String path, HttpResponse<String> response) {
    return check(method, path, response, 200);
  }

  /** Asserts the status, then validates the body with the document's schema for it. */
  private JsonNode check(String method, String path, HttpResponse<String> response, int status) {
    if (status == 204) {
      called.add(method + " " + path);
      assertThat(response.statusCode())
          .as("%s %s: %s", method, path, response.body())
          .isEqualTo(204);
      assertThat(response.body()).isEmpty();
      assertThat(api.response(method, path, 204).has("content")).as("a 204 has no body").isFalse();
      return null;
    }
    JsonNode body =
        check(
            method,
            path,
            response.statusCode(),
            response.headers().firstValue("Content-Type").orElse(null),
            response.body(),
            status);
    if (status == 201 || status == 202) {
      assertThat(api.response(method, path, status).path("headers").has("Location")).isTrue();
      assertThat(response.headers().firstValue("Location")).isPresent();
    }
    return body;
  }

  private JsonNode check(
      String method, String path, int actual, String contentType, String text, int status) {
    called.add(method + " " + path);
    assertThat(actual).as("%s %s: %s", method, path, text).isEqualTo(status);
    assertThat(contentType).as("%s %s", method, path).startsWith("application/json");
    JsonNode body;
    try {
      body = Http.JSON.readTree(text);
    } catch (IOException e) {
      throw new AssertionError(method + " " + path + " answered no JSON: " + text, e);
    }
    JsonSchema schema = api.responseSchema(method, path, status, "application/json");
    assertThat(ApiDocument.problems(schema, body))
        .as("%s %s %s answered %s", method, path, status, body)
        .isEmpty();
    return body;
  }
}
