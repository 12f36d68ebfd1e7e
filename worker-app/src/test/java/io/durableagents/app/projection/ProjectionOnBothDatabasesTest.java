package io.durableagents.app.projection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.app.cli.AgentsMain;
import io.durableagents.client.AgentClientException;
import io.durableagents.client.ApprovalRow;
import io.durableagents.client.Checkpoint;
import io.durableagents.client.HistoryEntry;
import io.durableagents.client.ProjectionReader;
import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import io.durableagents.projection.ProjectionUrl;
import io.durableagents.session.Approval;
import io.durableagents.session.ApprovalStatus;
import io.durableagents.session.RunStatus;
import io.durableagents.session.internal.ApprovalRecord;
import io.durableagents.store.AgentStores;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * What the worker's store writes, read back by the client side ({@link ProjectionReader}, the
 * {@code history} and {@code approvals} commands) and maintained by the {@code projection}
 * commands, on SQLite and on a real PostgreSQL.
 */
class ProjectionOnBothDatabasesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final AtomicInteger DATABASES = new AtomicInteger();

  @TempDir static Path shared;
  @TempDir Path dir;

  private static TestPostgres postgres;

  @BeforeAll
  static void startPostgres() {
    postgres = TestPostgres.start(shared.resolve("pgdata"), shared.resolve("postgres.log"));
  }

  @AfterAll
  static void stopPostgres() {
    if (postgres != null) {
      postgres.close();
    }
  }

  static Stream<String> databases() {
    return Stream.of("sqlite", "postgresql");
  }

  /** A fresh, empty projection database of that kind. */
  private String newDatabase(String kind) {
    if (kind.equals("sqlite")) {
      return "jdbc:sqlite:" + dir.resolve("projection-" + DATABASES.incrementAndGet() + ".db");
    }
    return postgres.createDatabase("projection_" + DATABASES.incrementAndGet());
  }

  @ParameterizedTest
  @MethodSource("databases")
  void historyEntriesHoldFullCheckpoints_newestFirst_andLimited(String kind) {
    String url = newDatabase(kind);
    List<Message> transcript = conversation();
    try (CheckpointStore store = CheckpointStore.of(AgentStores.open(url))) {
      writeConversation(store, "chat-1", transcript);
    }

    try (ProjectionReader reader = ProjectionReader.open(url)) {
      List<HistoryEntry> history = reader.history("chat-1", 0);

      assertThat(history).extracting(HistoryEntry::step).containsExactly(3, 2, 1);
      assertThat(history)
          .extracting(HistoryEntry::status)
          .containsExactly(RunStatus.FINISHED, RunStatus.IN_PROGRESS, RunStatus.IN_PROGRESS);
      assertThat(history).extracting(HistoryEntry::savedAt).containsExactly(3_000L, 2_000L, 1_000L);
      Checkpoint newest = history.get(0).checkpoint();
      assertThat(newest)
          .isEqualTo(
              Checkpoint.newBuilder()
                  .setSessionId("chat-1")
                  .setStepIndex(3)
                  .setRun(1)
                  .setStatus(RunStatus.FINISHED)
                  .setFinishReason(FinishReason.STOP)
                  .setMessages(transcript)
                  .setBusinessState(BUSINESS_STATE)
                  .setUsage(new Usage(30, 12))
                  .setFingerprint("fp-1")
                  .setSavedAt(3_000L)
                  .build());
      assertThat(history.get(1).checkpoint().businessState()).isNull();
      assertThat(history.get(1).checkpoint().messages()).isEqualTo(transcript.subList(0, 3));
      assertThat(history.get(2).checkpoint().messages()).isEqualTo(transcript.subList(0, 2));
      assertThat(history.get(2).checkpoint().finishReason()).isEqualTo(FinishReason.TOOL_CALLS);

      assertThat(reader.history("chat-1", 2)).extracting(HistoryEntry::step).containsExactly(3, 2);
      assertThat(reader.history("chat-1", 2).get(1)).isEqualTo(history.get(1));
      assertThat(reader.checkpoint("chat-1", 2)).contains(history.get(1).checkpoint());
      assertThat(reader.checkpoint("chat-1", 7)).isEmpty();
      assertThat(reader.history("nobody", 0)).isEmpty();
      assertThat(reader.messages("chat-1", -1)).isEqualTo(transcript);
      assertThat(reader.session("chat-1"))
          .hasValueSatisfying(
              row -> {
                assertThat(row.lastStep()).isEqualTo(3);
                assertThat(row.messageCount()).isEqualTo(4);
              });
    }
  }

  @ParameterizedTest
  @MethodSource("databases")
  void approvalsAreListedOldestFirst_withTheirSession(String kind) {
    String url = newDatabase(kind);
    try (CheckpointStore store = CheckpointStore.of(AgentStores.open(url))) {
      store.saveCheckpoint(approvalSave("chat-b", "appr-b", 2_000L, ApprovalStatus.PENDING));
      store.saveCheckpoint(approvalSave("chat-a", "appr-a", 1_000L, ApprovalStatus.PENDING));
      store.saveCheckpoint(approvalSave("chat-c", "appr-c", 500L, ApprovalStatus.REJECTED));
      store.markApprovalNotified("chat-a", "appr-a", 1_100L);
    }

    try (ProjectionReader reader = ProjectionReader.open(url)) {
      List<ApprovalRow> pending = reader.approvals(true);
      assertThat(pending).extracting(ApprovalRow::approvalId).containsExactly("appr-a", "appr-b");
      ApprovalRow first = pending.get(0);
      assertThat(first.sessionId()).isEqualTo("chat-a");
      assertThat(first.toolName()).isEqualTo("book_table");
      assertThat(first.input().path("people").asInt()).isEqualTo(2);
      assertThat(first.status()).isEqualTo(ApprovalStatus.PENDING);
      assertThat(first.expiresAt()).isEqualTo(1_000L + 3_600_000L);
      assertThat(first.notifiedAt()).isEqualTo(1_100L);
      assertThat(first.decidedAt()).isZero();

      assertThat(reader.approvals(false))
          .extracting(ApprovalRow::approvalId)
          .containsExactly("appr-c", "appr-a", "appr-b");
      ApprovalRow rejected = reader.approvals(false).get(0);
      assertThat(rejected.decidedBy()).isEqualTo("ops");
      assertThat(rejected.note()).isEqualTo("no");
      assertThat(reader.approvals("chat-b", false))
          .extracting(ApprovalRow::approvalId)
          .containsExactly("appr-b");
      assertThat(reader.approvals("chat-c", true)).isEmpty();
    }
  }

  @Test
  void onPostgresql_readsReuseTheReadersConnections_andCloseThemWithIt() throws Exception {
    String url = newDatabase("postgresql");
    try (CheckpointStore store = CheckpointStore.of(AgentStores.open(url))) {
      writeConversation(store, "chat-1", conversation());
    }
    String database = url.substring(url.lastIndexOf('/') + 1, url.indexOf('?'));
    try (ProjectionReader reader = ProjectionReader.open(url)) {
      assertThat(readerConnections(database)).as("it connects on the first read").isZero();
      for (int i = 0; i < 50; i++) {
        assertThat(reader.session("chat-1")).isPresent();
        assertThat(reader.history("chat-1", 0)).hasSize(3);
      }
      assertThat(readerConnections(database))
          .as("100 reads, one after the other, on one kept connection")
          .isEqualTo(1);
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(readerConnections(database)).isZero());
  }

  /** The server's connections to {@code database} that a projection reader opened. */
  private static int readerConnections(String database) throws Exception {
    try (Connection connection = DriverManager.getConnection(postgres.url("postgres"));
        PreparedStatement select =
            connection.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = ? AND application_name = ?")) {
      select.setString(1, database);
      select.setString(2, ProjectionUrl.READER_APPLICATION_NAME);
      try (ResultSet row = select.executeQuery()) {
        row.next();
        return row.getInt(1);
      }
    }
  }

  @ParameterizedTest
  @MethodSource("databases")
  void aDatabaseWithoutTheTables_isAnErrorNamingIt_andMissingMessagesAreReported(String kind)
      throws Exception {
    String url = newDatabase(kind);
    String shown =
        kind.equals("postgresql")
            ? url.substring(0, url.indexOf('?') < 0 ? url.length() : url.indexOf('?'))
            : url;
    try (ProjectionReader reader = ProjectionReader.open(url)) {
      // Never read as empty: a wrong URL must not look like a projection with nothing in it.
      assertThatThrownBy(() -> reader.history("chat-1", 0))
          .isInstanceOf(AgentClientException.class)
          .hasMessageContaining(shown);
      assertThatThrownBy(() -> reader.approvals(true)).isInstanceOf(AgentClientException.class);
      assertThatThrownBy(() -> reader.checkpoint("chat-1", 1))
          .isInstanceOf(AgentClientException.class);
    }
    if (!kind.equals("postgresql")) {
      assertThat(dir.resolve("projection-" + DATABASES.get() + ".db")).doesNotExist();
    }

    try (CheckpointStore store = CheckpointStore.of(AgentStores.open(url))) {
      writeConversation(store, "chat-1", conversation());
    }
    try (Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement()) {
      statement.executeUpdate("DELETE FROM agent_messages WHERE session_id = 'chat-1' AND seq = 1");
    }
    try (ProjectionReader reader = ProjectionReader.open(url)) {
      assertThatThrownBy(() -> reader.history("chat-1", 0))
          .isInstanceOf(AgentClientException.class)
          .hasMessageContaining("agents projection rebuild chat-1");
    }
  }

  @ParameterizedTest
  @MethodSource("databases")
  void historyAndApprovalsCommands_printTablesOrJson(String kind) throws Exception {
    String url = newDatabase(kind);
    List<Message> transcript = conversation();
    try (CheckpointStore store = CheckpointStore.of(AgentStores.open(url))) {
      writeConversation(store, "chat-1", transcript);
      store.saveCheckpoint(approvalSave("chat-2", "appr-2", 1_000L, ApprovalStatus.PENDING));
    }

    Outcome table = agents("history", "chat-1", "--projection", url);
    assertThat(table.exitCode()).as(table.err()).isZero();
    assertThat(table.out())
        .contains("chat-1 · 3 history entries, newest first")
        .contains("STEP", "SAVED AT", "STATUS", "LAST MESSAGE")
        .contains("1970-01-01 00:00:03")
        .contains("assistant: It is 21.5 °C.")
        .contains("assistant: → weather");

    Outcome json = agents("history", "chat-1", "--limit", "2", "--json", "--projection", url);
    assertThat(json.exitCode()).as(json.err()).isZero();
    JsonNode entries = JSON.readTree(json.out());
    assertThat(entries).hasSize(2);
    assertThat(entries.get(0).path("step").asInt()).isEqualTo(3);
    assertThat(entries.get(0).path("status").asText()).isEqualTo("finished");
    assertThat(entries.get(0).path("savedAt").asLong()).isEqualTo(3_000L);
    JsonNode checkpoint = entries.get(0).path("checkpoint");
    assertThat(checkpoint.path("stepIndex").asInt()).isEqualTo(3);
    assertThat(checkpoint.path("messages")).hasSize(4);
    assertThat(checkpoint.path("usage").path("inputTokens").asLong()).isEqualTo(30);
    assertThat(entries.get(1).path("checkpoint").path("messages")).hasSize(3);

    Outcome unknown = agents("history", "nobody", "--projection", url);
    assertThat(unknown.exitCode()).isEqualTo(4);
    assertThat(unknown.err()).contains("nobody");
    assertThat(agents("history", "nobody", "--json", "--projection", url).out().strip())
        .isEqualTo("[ ]");
    assertThat(agents("history", "bad id!", "--projection", url).exitCode()).isEqualTo(2);
    assertThat(agents("history", "chat-1", "--limit", "-1", "--projection", url).exitCode())
        .isEqualTo(2);

    Outcome inbox = agents("approvals", "--pending", "--projection", url);
    assertThat(inbox.exitCode()).as(inbox.err()).isZero();
    assertThat(inbox.out())
        .contains("appr-2", "chat-2", "book_table", "pending")
        .contains("decide with: ./agents approve chat-2 appr-2");
    Outcome inboxJson = agents("approvals", "--json", "--projection", url);
    JsonNode approvals = JSON.readTree(inboxJson.out());
    assertThat(approvals).hasSize(1);
    assertThat(approvals.get(0).path("sessionId").asText()).isEqualTo("chat-2");
    assertThat(approvals.get(0).path("input").path("people").asInt()).isEqualTo(2);
  }

  @ParameterizedTest
  @MethodSource("databases")
  void projectionDeleteAndPruneCommands(String kind) throws Exception {
    String url = newDatabase(kind);
    List<Message> transcript = conversation();
    long now = System.currentTimeMillis();
    try (CheckpointStore store = CheckpointStore.of(AgentStores.open(url))) {
      writeConversation(store, "chat-1", transcript);
      writeConversation(store, "chat-2", transcript);
      store.saveCheckpoint(
          new CheckpointSave(
              "fresh",
              "exec-f",
              "concierge",
              1,
              0,
              RunStatus.FINISHED,
              FinishReason.STOP,
              0,
              transcript,
              Usage.ZERO,
              "fp",
              now,
              List.of(),
              null,
              null,
              null));
    }

    Outcome keep = agents("projection", "delete", "chat-1", "--keep-history", "--projection", url);
    assertThat(keep.exitCode()).as(keep.err()).isZero();
    assertThat(keep.out()).contains("Deleted session chat-1", "keeping its history");
    Outcome all = agents("projection", "delete", "chat-2", "--projection", url);
    assertThat(all.exitCode()).as(all.err()).isZero();
    assertThat(agents("projection", "delete", "chat-2", "--projection", url).exitCode())
        .isEqualTo(4);
    try (ProjectionReader reader = ProjectionReader.open(url)) {
      assertThat(reader.session("chat-1")).isEmpty();
      assertThat(reader.history("chat-1", 0)).hasSize(3);
      assertThat(reader.session("chat-2")).isEmpty();
      assertThat(reader.history("chat-2", 0)).isEmpty();
      assertThat(reader.messages("chat-2", -1)).isEmpty();
    }

    Outcome prune =
        agents("projection", "prune", "--older-than", "1h", "--yes", "--projection", url);
    assertThat(prune.exitCode()).as(prune.err()).isZero();
    // chat-1's kept history (saved in 1970) and its messages go; "fresh" stays.
    assertThat(prune.out()).contains("0 sessions, 3 history entries, 4 messages, 0 approvals");
    try (ProjectionReader reader = ProjectionReader.open(url)) {
      assertThat(reader.history("chat-1", 0)).isEmpty();
      assertThat(reader.messages("chat-1", -1)).isEmpty();
      assertThat(reader.session("fresh")).isPresent();
      assertThat(reader.history("fresh", 0)).hasSize(1);
    }
    assertThat(
            agents("projection", "prune", "--older-than", "P1D", "--yes", "--projection", url)
                .exitCode())
        .isZero();
    Outcome invalid = agents("projection", "prune", "--older-than", "soon", "--projection", url);
    assertThat(invalid.exitCode()).isEqualTo(2);
    assertThat(invalid.err()).contains("--older-than");
    assertThat(agents("projection", "prune", "--projection", url).exitCode()).isEqualTo(2);
    assertThat(agents("projection").exitCode()).isEqualTo(2);
  }

  // ---- helpers -------------------------------------------------------------------------------

  record Outcome(int exitCode, String out, String err) {}

  private static Outcome agents(String... args) {
    CommandLine commandLine = AgentsMain.commandLine(Map.of());
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exitCode = commandLine.execute(args);
    return new Outcome(exitCode, out.toString(), err.toString());
  }

  /** What the tools of {@link #writeConversation} leave in the business state at the last step. */
  private static final JsonNode BUSINESS_STATE =
      JSON.createObjectNode()
          .set("booking", JSON.createObjectNode().put("city", "Zürich").put("people", 2));

  /** A user question, a tool call, its result and the answer. */
  private static List<Message> conversation() {
    ToolCall call =
        new ToolCall("call-1", "weather", JSON.createObjectNode().put("city", "Zürich"));
    return List.of(
        Message.user("What's the weather in Zürich?"),
        Message.assistant(null, List.of(call)),
        Message.toolResult(call, JSON.createObjectNode().put("celsius", 21.5)),
        Message.assistant("It is 21.5 °C.", null));
  }

  /** Three saves as a run writes them: model turn, tool batch, final answer. */
  private static void writeConversation(
      CheckpointStore store, String session, List<Message> transcript) {
    List<CheckpointSave> saves = new ArrayList<>();
    saves.add(
        new CheckpointSave(
            session,
            "exec-" + session,
            "concierge",
            1,
            1,
            RunStatus.IN_PROGRESS,
            FinishReason.TOOL_CALLS,
            0,
            transcript.subList(0, 2),
            new Usage(10, 5),
            "fp-1",
            1_000L,
            List.of(),
            null,
            null,
            null));
    saves.add(
        new CheckpointSave(
            session,
            "exec-" + session,
            "concierge",
            1,
            2,
            RunStatus.IN_PROGRESS,
            FinishReason.TOOL_CALLS,
            2,
            transcript.subList(2, 3),
            new Usage(10, 5),
            "fp-1",
            2_000L,
            List.of(),
            null,
            null,
            null));
    saves.add(
        new CheckpointSave(
            session,
            "exec-" + session,
            "concierge",
            1,
            3,
            RunStatus.FINISHED,
            FinishReason.STOP,
            3,
            transcript.subList(3, 4),
            new Usage(30, 12),
            "fp-1",
            3_000L,
            List.of(),
            BUSINESS_STATE,
            null,
            null));
    saves.forEach(store::saveCheckpoint);
  }

  private static CheckpointSave approvalSave(
      String session, String approvalId, long requestedAt, ApprovalStatus status) {
    Approval approval =
        new Approval(
            approvalId,
            "call-9",
            "book_table",
            JSON.createObjectNode().put("restaurant", "Chez Marcel").put("people", 2),
            requestedAt,
            requestedAt + 3_600_000L);
    boolean decided = !ApprovalStatus.PENDING.equals(status);
    ApprovalRecord record =
        new ApprovalRecord(
            approval,
            1,
            1,
            status,
            decided ? requestedAt + 5 : 0,
            decided ? "ops" : null,
            decided ? "no" : null,
            0);
    return new CheckpointSave(
        session,
        "exec-" + session,
        "concierge",
        1,
        1,
        RunStatus.AWAITING_APPROVAL,
        FinishReason.AWAITING_APPROVAL,
        0,
        List.of(Message.user("book it")),
        Usage.ZERO,
        "fp-1",
        requestedAt,
        List.of(record),
        null,
        null,
        null);
  }
}
