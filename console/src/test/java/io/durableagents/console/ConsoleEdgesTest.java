package io.durableagents.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.client.SessionExistsException;
import io.durableagents.workflow.Limits;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Requests at the edges of the API: a fork onto a taken id, event streams of sessions that cannot
 * have any, requests the HTTP server refuses before routing, an identity too long to decide, and a
 * port in use.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ConsoleEdgesTest {
  private static final String PROXY_HEADER = "X-Forwarded-User";

  private static ConsoleFixture fixture;
  private static Http http;
  private static Http proxyHttp;

  @BeforeAll
  static void start() {
    fixture = ConsoleFixture.start();
    http = new Http(fixture.console(ConsoleAuth.local()));
    proxyHttp = new Http(fixture.console(ConsoleAuth.trustedHeader(PROXY_HEADER)));
    fixture.finished("edge-done");
  }

  @AfterAll
  static void stop() {
    if (fixture != null) {
      fixture.close();
    }
  }

  @Test
  void aForkOntoATakenId_is409NamingIt_andTheClientThrowsSessionExists() {
    fixture.awaitingApproval("edge-taken");
    ConsoleFixture.SessionState before = fixture.state("edge-taken");
    int step = fixture.projection().session("edge-done").orElseThrow().lastStep();

    JsonNode error =
        assertError(
            http.post(
                "/api/sessions/edge-done/forks",
                "{\"fromStep\":" + step + ",\"newSessionId\":\"edge-taken\"}"),
            409,
            "session_exists");
    assertThat(error.get("sessionId").textValue()).isEqualTo("edge-taken");
    assertThat(error.get("message").textValue()).contains("'edge-taken' already exists");
    assertThat(fixture.state("edge-taken")).isEqualTo(before);

    assertThatThrownBy(() -> fixture.client().fork("edge-done", step, null, "edge-taken"))
        .isInstanceOfSatisfying(
            SessionExistsException.class, e -> assertThat(e.sessionId()).isEqualTo("edge-taken"))
        .hasMessage("Session 'edge-taken' already exists; choose another id.");
  }

  @Test
  void theEventsOfAnInvalidOrUnknownSession_areRefusedAsJson_beforeAnyStream() {
    JsonNode invalid = assertError(events("/api/sessions/bad%20id/events"), 400, "bad_request");
    assertThat(invalid.get("field").textValue()).isEqualTo("id");
    JsonNode unknown = assertError(events("/api/sessions/nobody-here/events"), 404, "not_found");
    assertThat(unknown.get("message").textValue()).contains("nobody-here");
  }

  /** An events request that gives up (failing the test) if the answer is a stream left open. */
  private static HttpResponse<String> events(String path) {
    return http.send(
        http.request(path)
            .header("Accept", "text/event-stream")
            .timeout(Duration.ofSeconds(10))
            .GET());
  }

  @Test
  void aNulInThePath_isAJson400_onApiAndPagePaths() {
    for (String path : new String[] {"/api/sessions/a%00b", "/sessions/a%00b", "/api/%00"}) {
      HttpResponse<String> response = http.get(path);
      assertError(response, 400, "bad_request");
      assertThat(response.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
    }
  }

  @Test
  void aUriTooLong_isAJson414() {
    HttpResponse<String> response = http.get("/api/sessions?q=" + "x".repeat(20_000));
    assertError(response, 414, "uri_too_long");
    assertThat(response.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
  }

  @Test
  void aProxyIdentityTooLongToDecide_isRefusedAtSignIn_namingTheLimit() {
    String tooLong = "u".repeat(Limits.DECIDED_BY_CHARS + 1);
    JsonNode error =
        assertError(proxyHttp.get("/api/me", PROXY_HEADER, tooLong), 401, "unauthorized");
    assertThat(error.get("message").textValue())
        .contains(PROXY_HEADER)
        .contains(Integer.toString(Limits.DECIDED_BY_CHARS + 1))
        .contains("limit of " + Limits.DECIDED_BY_CHARS);

    // The longest identity it takes can decide.
    String longest = "v".repeat(Limits.DECIDED_BY_CHARS);
    String approvalId = fixture.awaitingApproval("edge-long-identity");
    HttpResponse<String> decided =
        proxyHttp.post(
            "/api/sessions/edge-long-identity/approvals/" + approvalId,
            "{\"approved\":true}",
            PROXY_HEADER,
            longest);
    assertThat(decided.statusCode()).as(decided.body()).isEqualTo(200);
    assertThat(fixture.decided("edge-long-identity", approvalId).decidedBy()).isEqualTo(longest);
  }

  @Test
  void anApproverNameTooLongToDecide_isRefusedWithTheTokens() {
    String tooLong = "a".repeat(Limits.DECIDED_BY_CHARS + 1);
    assertThatThrownBy(() -> ConsoleAuth.tokens(Map.of("t-1", tooLong)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limit of " + Limits.DECIDED_BY_CHARS);
  }

  @Test
  void aPortInUse_isOneClearError_withoutJavalinsErrorLog() throws IOException {
    PrintStream err = System.err;
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      ConsoleOptions.Builder options =
          ConsoleOptions.newBuilder().setBind("127.0.0.1").setPort(taken.getLocalPort());
      System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8));
      try {
        assertThatThrownBy(
                () ->
                    AgentConsole.start(fixture.client(), fixture.projection(), options.build())
                        .close())
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("already in use");
      } finally {
        System.setErr(err);
      }
    }
    assertThat(logged.toString(StandardCharsets.UTF_8))
        .doesNotContain("ERROR")
        .doesNotContain("Failed to start Javalin")
        .doesNotContain("BindException");
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
}
