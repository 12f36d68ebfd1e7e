package io.durableagents.app.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.app.cli.AgentsMain;
import io.durableagents.client.ApprovalRow;
import io.durableagents.client.HistoryEntry;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SessionFilter;
import io.durableagents.client.SessionRow;
import io.durableagents.session.ApprovalStatus;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code agents bench console} in a small configuration on an embedded PostgreSQL: the command
 * runs, its answers have the seeded counts, every figure is there, and every seeded row reads back
 * through the projection reader. Never how fast: CI machines are shared.
 */
class ConsoleBenchTest {
  private static final int SESSIONS = 500;
  private static final int PENDING = 50;

  private static EmbeddedPostgres postgres;

  @BeforeAll
  static void startPostgres() throws IOException {
    postgres =
        EmbeddedPostgres.builder()
            .setOutputRedirector(ProcessBuilder.Redirect.DISCARD)
            .setErrorRedirector(ProcessBuilder.Redirect.DISCARD)
            .start();
  }

  @AfterAll
  static void stopPostgres() throws IOException {
    if (postgres != null) {
      postgres.close();
    }
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void benchConsole_onASmallSeed_reportsEveryRouteWithTheSeededCounts() throws Exception {
    String url = createDatabase("console_bench");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine agents = AgentsMain.commandLine(Map.of());
    agents.setOut(new PrintWriter(out, true));
    agents.setErr(new PrintWriter(err, true));

    int exit =
        agents.execute(
            "bench",
            "console",
            "--sessions",
            String.valueOf(SESSIONS),
            "--pending",
            String.valueOf(PENDING),
            "--requests",
            "20",
            "--warmup",
            "2",
            "--json",
            "--projection",
            url);

    assertThat(exit).as("stderr: %s", err).isZero();
    JsonNode json = new ObjectMapper().readTree(out.toString());
    assertThat(json.get("sessions").asInt()).isEqualTo(SESSIONS);
    assertThat(json.get("pendingApprovals").asInt()).isEqualTo(PENDING);
    assertThat(json.get("awaitingApprovalSessions").asInt()).isEqualTo(PENDING);
    assertThat(json.get("decidedApprovals").asInt()).isEqualTo(25);
    assertThat(json.get("forks").asInt()).isEqualTo(1);
    assertThat(json.get("requestsPerRoute").asInt()).isEqualTo(20);
    assertThat(json.get("pass").isBoolean()).isTrue();
    assertThat(json.get("verdict").asText()).matches("(PASS|MISS): .*");

    Map<String, Integer> items =
        Map.of(
            "inbox",
            PENDING,
            "sessions",
            ConsoleBench.PAGE,
            "sessions, page 6",
            ConsoleBench.PAGE,
            "status=awaiting-approval",
            ConsoleBench.PAGE,
            // ids ...-00042 and ...-00420 to ...-00429
            "q=" + ConsoleBench.ID_QUERY,
            11);
    JsonNode routes = json.get("routes");
    assertThat(routes.size()).isEqualTo(items.size());
    items.forEach(
        (route, count) -> {
          JsonNode figures = routes.get(route);
          assertThat(figures).as("route %s in %s", route, routes).isNotNull();
          assertThat(figures.get("items").asInt()).as(route).isEqualTo(count);
          assertThat(figures.get("bytes").asLong()).as(route).isPositive();
          for (JsonNode sample : List.of(figures, figures.get("reader"))) {
            assertThat(sample.get("p50Ms").asDouble()).as(route).isPositive();
            assertThat(sample.get("p95Ms").asDouble())
                .as(route)
                .isGreaterThanOrEqualTo(sample.get("p50Ms").asDouble());
            assertThat(sample.get("maxMs").asDouble())
                .as(route)
                .isGreaterThanOrEqualTo(sample.get("p95Ms").asDouble());
          }
        });
    assertThat(json.get("connect").get("p95Ms").asDouble()).isPositive();

    everySeededSessionReadsBack(url);

    // The seeded database is not empty any more: a second run refuses to add to it.
    try (ConsoleBench again =
        new ConsoleBench(
            new ConsoleBench.Config(SESSIONS, PENDING, 1, 0), url, new PrintWriter(err, true))) {
      assertThatThrownBy(again::run)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("holds " + SESSIONS + " sessions");
    }
  }

  /**
   * Every seeded session and approval maps in the list reads, and every read of a session page
   * works on a sample that holds each kind of session (each status, a fork and its parent, decided
   * and pending approvals) and gives back the seed. A sample, since each read opens a connection.
   */
  private static void everySeededSessionReadsBack(String url) {
    ConsoleSeed seed = new ConsoleSeed(SESSIONS, PENDING, System.currentTimeMillis());
    try (ProjectionReader reader = ProjectionReader.open(url)) {
      List<SessionRow> all = reader.sessions(SessionFilter.ALL, null, SESSIONS).sessions();
      assertThat(all).hasSize(SESSIONS);
      assertThat(reader.approvals(false)).hasSize(PENDING + 25);
      assertThat(reader.approvals(true)).hasSize(PENDING);

      int fork = ConsoleSeed.FORK_EVERY - 1;
      Set<Integer> sample = new TreeSet<>(List.of(fork - 1, fork, SESSIONS - 1));
      for (int i = 0; i < 2 * ConsoleSeed.AGENTS.length * 6; i++) {
        sample.add(i);
      }
      for (int i : sample) {
        String id = ConsoleSeed.sessionId(i);
        SessionRow row = reader.session(id).orElseThrow();
        assertThat(row.status()).as(id).isEqualTo(seed.status(i));
        assertThat(row.messageCount()).as(id).isEqualTo(ConsoleSeed.MESSAGES_PER_SESSION);
        assertThat(reader.messages(id, -1)).as(id).isEqualTo(seed.transcript(i, seed.fork(i)));
        List<HistoryEntry> history = reader.history(id, 0);
        assertThat(history).as(id).extracting(HistoryEntry::step).containsExactly(2, 1);
        assertThat(history.get(1).checkpoint().messages())
            .as(id)
            .isEqualTo(seed.transcript(i, seed.fork(i)).subList(0, 2));
        List<ApprovalRow> approvals = reader.approvals(id, false);
        if (seed.awaiting(i)) {
          assertThat(approvals).as(id).hasSize(1);
          pendingRefund(approvals.get(0), seed, i);
        } else {
          assertThat(approvals).as(id).hasSize(seed.decided(i) ? 1 : 0);
        }
        if (seed.fork(i)) {
          assertThat(row.parentSessionId()).isEqualTo(ConsoleSeed.sessionId(i - 1));
          assertThat(reader.forks(ConsoleSeed.sessionId(i - 1)))
              .extracting(SessionRow::sessionId)
              .containsExactly(id);
        }
      }
      assertThat(sample.stream().map(seed::status).distinct()).hasSize(6);
      assertThat(sample.stream().filter(seed::decided)).isNotEmpty();
      assertThat(sample.stream().filter(seed::fork)).hasSize(1);
    }
  }

  /** The pending approval is of the tool call the transcript's last message makes. */
  private static void pendingRefund(ApprovalRow approval, ConsoleSeed seed, int i) {
    assertThat(approval.status()).isEqualTo(ApprovalStatus.PENDING);
    assertThat(approval.expiresAt()).isGreaterThan(System.currentTimeMillis());
    var call = seed.transcript(i, false).get(3).toolCalls().get(0);
    assertThat(approval.toolCallId()).isEqualTo(call.id());
    assertThat(approval.toolName()).isEqualTo(call.name());
    assertThat(approval.input()).isEqualTo(call.arguments());
  }

  private static String createDatabase(String name) throws SQLException {
    String server = "jdbc:postgresql://localhost:" + postgres.getPort() + "/";
    try (Connection connection = DriverManager.getConnection(server + "postgres?user=postgres");
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE DATABASE " + name);
    }
    return server + name + "?user=postgres";
  }
}
