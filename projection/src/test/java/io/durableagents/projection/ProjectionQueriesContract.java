package io.durableagents.projection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import io.durableagents.projection.internal.ProjectionQueries;
import io.durableagents.projection.internal.StoredApproval;
import io.durableagents.projection.internal.StoredEntry;
import io.durableagents.projection.internal.StoredSession;
import io.durableagents.session.Approval;
import io.durableagents.session.ApprovalStatus;
import io.durableagents.session.RunRecord;
import io.durableagents.session.RunStatus;
import io.durableagents.session.StepRecord;
import io.durableagents.session.internal.ApprovalRecord;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The read model on a real database migrated with the store's own migrations: rows written as the
 * store writes them map to the records, through the read-only connections a reader opens.
 */
abstract class ProjectionQueriesContract {
  static final ObjectMapper JSON = new ObjectMapper();

  /** A URL of a new, empty database (or schema) of the kind under test. */
  protected abstract String newDatabaseUrl();

  protected abstract ProjectionUrl.Kind kind();

  /** The queries under test. */
  private ProjectionQueries read;

  /** The migrated database the test works on, created on first use. */
  private String url;

  @BeforeEach
  void queriesForTheKind() {
    read = ProjectionQueries.of(kind());
  }

  private String url() {
    if (url == null) {
      url = newDatabaseUrl();
      migrate(url, null);
    }
    return url;
  }

  /** Applies the store's migrations to {@code target} (null: all), as the store does. */
  static void migrate(String jdbcUrl, String target) {
    var config =
        Flyway.configure(ProjectionQueriesContract.class.getClassLoader())
            .dataSource(jdbcUrl, null, null)
            .locations("classpath:io/durableagents/store/migration")
            .table("agent_store_schema_history")
            .failOnMissingLocations(true);
    if (target != null) {
      config.target(target);
    }
    config.load().migrate();
  }

  /** A read-only connection to the test database, the way a reader opens one. */
  protected Connection reading() throws SQLException {
    return ProjectionUrl.parse(url(), "projection").openReadOnly();
  }

  protected void execute(String sql, Object... parameters) throws SQLException {
    executeOn(url(), sql, parameters);
  }

  static void executeOn(String jdbcUrl, String sql, Object... parameters) throws SQLException {
    try (Connection connection = DriverManager.getConnection(jdbcUrl);
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      statement.executeUpdate();
    }
  }

  static final String INSERT_SESSION =
      "INSERT INTO agent_sessions (session_id, execution_id, agent, status, current_run,"
          + " last_step, message_count, input_tokens, output_tokens, fingerprint, created_at,"
          + " updated_at)"
          + " VALUES (?, 'exec-1', 'concierge', 'finished', 2, 7, 4, 120, 45, 'fp', 1000, 1700)";

  static final String INSERT_ENTRY =
      "INSERT INTO agent_checkpoints (session_id, step, run, status, finish_reason, message_count,"
          + " input_tokens, output_tokens, business_state, fingerprint, saved_at)"
          + " VALUES (?, ?, 1, ?, ?, ?, ?, 5, ?, 'fp', ?)";

  static void insertMessage(String jdbcUrl, String sessionId, int seq, String body)
      throws SQLException {
    executeOn(
        jdbcUrl,
        "INSERT INTO agent_messages (session_id, seq, run, step, role, body)"
            + " VALUES (?, ?, 1, 0, 'user', ?)",
        sessionId,
        seq,
        body);
  }

  private void insertMessage(String sessionId, int seq, Message message) throws Exception {
    insertMessage(url(), sessionId, seq, JSON.writeValueAsString(message));
  }

  private static StoredSession finishedSession(String sessionId) {
    return new StoredSession(
        sessionId,
        "exec-1",
        "concierge",
        RunStatus.FINISHED,
        2,
        7,
        4,
        new Usage(120, 45),
        "fp",
        1_000L,
        1_700L,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  @Test
  void aSessionRowMapsEveryColumn_withItsLineage() throws Exception {
    execute(INSERT_SESSION, "chat-1");
    execute(INSERT_SESSION, "chat-1.fork");
    execute(
        "UPDATE agent_sessions SET parent_session_id = 'chat-1', parent_step = 3,"
            + " fork_patch = 'businessState appendInput' WHERE session_id = 'chat-1.fork'");

    try (Connection connection = reading()) {
      assertThat(read.session(connection, "chat-1")).contains(finishedSession("chat-1"));
      assertThat(read.session(connection, "chat-1.fork"))
          .contains(
              new StoredSession(
                  "chat-1.fork",
                  "exec-1",
                  "concierge",
                  RunStatus.FINISHED,
                  2,
                  7,
                  4,
                  new Usage(120, 45),
                  "fp",
                  1_000L,
                  1_700L,
                  "chat-1",
                  3,
                  "businessState appendInput",
                  null,
                  null,
                  null,
                  null,
                  null));
      assertThat(read.session(connection, "nobody")).isEmpty();
    }
  }

  @Test
  void subAgentSessions_areListedApartFromForks() throws Exception {
    execute(INSERT_SESSION, "chat-3");
    execute(INSERT_SESSION, "chat-3.fork");
    execute(INSERT_SESSION, "chat-3:sub:0123456789abcdef");
    execute(
        "UPDATE agent_sessions SET parent_session_id = 'chat-3', parent_step = 2"
            + " WHERE session_id = 'chat-3.fork'");
    execute(
        "UPDATE agent_sessions SET parent_session_id = 'chat-3', parent_call_id = 'call_0_0'"
            + " WHERE session_id = 'chat-3:sub:0123456789abcdef'");

    try (Connection connection = reading()) {
      assertThat(read.forks(connection, "chat-3"))
          .extracting(StoredSession::sessionId)
          .containsExactly("chat-3.fork");
      assertThat(read.subAgents(connection, "chat-3"))
          .singleElement()
          .satisfies(
              child -> {
                assertThat(child.sessionId()).isEqualTo("chat-3:sub:0123456789abcdef");
                assertThat(child.parentSessionId()).isEqualTo("chat-3");
                assertThat(child.parentCallId()).isEqualTo("call_0_0");
                assertThat(child.isSubAgent()).isTrue();
                assertThat(child.isFork()).isFalse();
              });
      assertThat(read.session(connection, "chat-3.fork").orElseThrow().isFork()).isTrue();
    }
  }

  @Test
  void historyIsNewestFirst_limited_andMapsEveryColumn() throws Exception {
    ObjectNode state = JSON.createObjectNode().put("cart", 2);
    execute(INSERT_ENTRY, "chat-2", 1, "in-progress", "tool_calls", 2, 10L, null, 1_000L);
    execute(INSERT_ENTRY, "chat-2", 3, "finished", "stop", 4, 30L, state.toString(), 3_000L);
    execute(INSERT_ENTRY, "chat-2", 2, "in-progress", null, 3, 20L, null, 2_000L);
    execute(INSERT_ENTRY, "other", 9, "finished", "stop", 1, 1L, null, 9_000L);
    execute(
        "UPDATE agent_checkpoints SET transcript_hash = 'h3', run_config = '{\"tier\":\"gold\"}',"
            + " run_steps = 2, run_input_tokens = 12, run_output_tokens = 3,"
            + " drift = 'instructions changed' WHERE session_id = 'chat-2' AND step = 3");

    StoredEntry newest =
        new StoredEntry(
            3,
            1,
            3_000L,
            RunStatus.FINISHED,
            "stop",
            4,
            new Usage(30, 5),
            "fp",
            state,
            "h3",
            2,
            new Usage(12, 3),
            JSON.createObjectNode().put("tier", "gold"),
            "instructions changed");
    StoredEntry middle =
        new StoredEntry(
            2,
            1,
            2_000L,
            RunStatus.IN_PROGRESS,
            null,
            3,
            new Usage(20, 5),
            "fp",
            null,
            null,
            null,
            null,
            null,
            null);
    StoredEntry oldest =
        new StoredEntry(
            1,
            1,
            1_000L,
            RunStatus.IN_PROGRESS,
            "tool_calls",
            2,
            new Usage(10, 5),
            "fp",
            null,
            null,
            null,
            null,
            null,
            null);
    try (Connection connection = reading()) {
      assertThat(read.history(connection, "chat-2", 0)).containsExactly(newest, middle, oldest);
      assertThat(read.history(connection, "chat-2", -1)).containsExactly(newest, middle, oldest);
      assertThat(read.history(connection, "chat-2", 2)).containsExactly(newest, middle);
      assertThat(read.entry(connection, "chat-2", 2)).contains(middle);
      assertThat(read.entry(connection, "chat-2", 3)).contains(newest);
      assertThat(read.entry(connection, "chat-2", 4)).isEmpty();
      assertThat(read.history(connection, "nobody", 0)).isEmpty();
    }
  }

  @Test
  void stepRecordsAreReadByEntryInTheOrderTaken_andRunsFirstRunFirst() throws Exception {
    String insertStep =
        "INSERT INTO agent_steps (session_id, step, kind, ordinal, run, name, started_at,"
            + " finished_at, input_tokens, output_tokens, error, partial_text)"
            + " VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)";
    execute(insertStep, "steps-1", 2, "tool", 1, "nope", null, null, 0L, 0L, "unknown_tool", null);
    execute(insertStep, "steps-1", 2, "tool", 0, "get_weather", 1_500L, 1_750L, 0L, 0L, null, null);
    execute(insertStep, "steps-1", 1, "model", 0, "gpt", 1_000L, 1_400L, 10L, 5L, null, null);
    execute(
        insertStep,
        "steps-1",
        3,
        "model",
        0,
        "gpt",
        2_000L,
        2_500L,
        0L,
        0L,
        "model_unavailable: cut",
        "Half an");
    execute(insertStep, "other", 2, "model", 0, "gpt", 1L, 2L, 0L, 0L, null, null);
    String insertRun =
        "INSERT INTO agent_runs (session_id, run, status, started_at, finished_at, last_step)"
            + " VALUES (?, ?, ?, ?, ?, ?)";
    execute(insertRun, "steps-1", 2, "in-progress", 4_000L, null, 4);
    execute(insertRun, "steps-1", 1, "failed", 900L, 3_000L, 3);

    StepRecord turn = new StepRecord("model", "gpt", 1_000L, 1_400L, new Usage(10, 5), null, null);
    StepRecord weather = new StepRecord("tool", "get_weather", 1_500L, 1_750L, null, null, null);
    StepRecord unknown = new StepRecord("tool", "nope", null, null, null, "unknown_tool", null);
    StepRecord failed =
        new StepRecord("model", "gpt", 2_000L, 2_500L, null, "model_unavailable: cut", "Half an");
    try (Connection connection = reading()) {
      assertThat(read.steps(connection, "steps-1", 0, 10))
          .containsExactly(
              Map.entry(1, List.of(turn)),
              Map.entry(2, List.of(weather, unknown)),
              Map.entry(3, List.of(failed)));
      assertThat(read.steps(connection, "steps-1", 2, 3)).containsOnlyKeys(2, 3);
      assertThat(read.steps(connection, "nobody", 0, 10)).isEmpty();
      assertThat(read.runs(connection, "steps-1"))
          .containsExactly(
              new RunRecord(1, RunStatus.FAILED, 900L, 3_000L),
              new RunRecord(2, RunStatus.IN_PROGRESS, 4_000L, null));
      assertThat(read.runs(connection, "nobody")).isEmpty();
    }
  }

  @Test
  void aBusinessStateThatIsNotJson_isAProjectionException() throws Exception {
    execute(INSERT_ENTRY, "chat-3", 1, "finished", "stop", 0, 0L, "{not json", 1_000L);
    try (Connection connection = reading()) {
      assertThatThrownBy(() -> read.history(connection, "chat-3", 0))
          .isInstanceOf(ProjectionException.class)
          .hasMessage("a stored JSON column is not valid JSON");
      assertThatThrownBy(() -> read.entry(connection, "chat-3", 1))
          .isInstanceOf(ProjectionException.class);
    }
  }

  @Test
  void messagesReadInOrder_gapsSkipped_andContiguousOnesStopAtTheFirstGap() throws Exception {
    List<Message> transcript = transcript();
    // Written out of order, as concurrent saves may land; seq 3 is missing.
    insertMessage("chat-4", 4, transcript.get(3));
    insertMessage("chat-4", 2, transcript.get(2));
    insertMessage("chat-4", 0, transcript.get(0));
    insertMessage("chat-4", 1, transcript.get(1));
    insertMessage("other", 0, Message.user("not mine"));

    try (Connection connection = reading()) {
      assertThat(read.messages(connection, "chat-4", 0, Integer.MAX_VALUE)).isEqualTo(transcript);
      assertThat(read.messages(connection, "chat-4", 1, 3)).isEqualTo(transcript.subList(1, 3));
      assertThat(read.messages(connection, "chat-4", 2, 2)).isEmpty();
      assertThat(read.contiguousMessages(connection, "chat-4", 0, Integer.MAX_VALUE))
          .isEqualTo(transcript.subList(0, 3));
      assertThat(read.contiguousMessages(connection, "chat-4", 0, 2))
          .isEqualTo(transcript.subList(0, 2));
      assertThat(read.contiguousMessages(connection, "chat-4", 1, 5))
          .isEqualTo(transcript.subList(1, 3));
      // Starting at the gap: none follow it.
      assertThat(read.contiguousMessages(connection, "chat-4", 3, 5)).isEmpty();
      assertThat(read.messages(connection, "nobody", 0, Integer.MAX_VALUE)).isEmpty();
    }
  }

  @Test
  void aMessageBodyMayCarryPropertiesItDoesNotKnow() throws Exception {
    insertMessage(url(), "chat-5", 0, "{\"role\":\"user\",\"text\":\"hi\",\"addedLater\":42}");
    try (Connection connection = reading()) {
      assertThat(read.messages(connection, "chat-5", 0, 1)).containsExactly(Message.user("hi"));
    }
  }

  @Test
  void aMessageThatDoesNotDecode_isAProjectionExceptionNamingIt() throws Exception {
    insertMessage(url(), "chat-6", 0, JSON.writeValueAsString(Message.user("fine")));
    insertMessage(url(), "chat-6", 1, "null");
    insertMessage(url(), "chat-6", 2, "{\"role\":");
    try (Connection connection = reading()) {
      assertThat(read.contiguousMessages(connection, "chat-6", 0, 1))
          .containsExactly(Message.user("fine"));
      assertThatThrownBy(() -> read.messages(connection, "chat-6", 0, 2))
          .isInstanceOf(ProjectionException.class)
          .hasMessage("message 1 of session chat-6 is stored as JSON null");
      assertThatThrownBy(() -> read.contiguousMessages(connection, "chat-6", 2, 3))
          .isInstanceOf(ProjectionException.class)
          .hasMessage("message 2 of session chat-6 is not a valid message JSON")
          .hasCauseInstanceOf(IOException.class);
    }
  }

  @Test
  void approvalsAreOldestFirst_filtered_andNullTimesReadAsZero() throws Exception {
    String insert =
        "INSERT INTO agent_approvals (approval_id, session_id, run, step, tool_call_id, tool_name,"
            + " input, status, requested_at, expires_at, decided_at, decided_by, note, notified_at)"
            + " VALUES (?, ?, 1, 2, ?, 'book', ?, ?, ?, 9000, ?, ?, ?, ?)";
    String arguments = "{\"party\":2}";
    execute(
        insert, "a-2", "chat-7", "call-2", arguments, "pending", 2_000L, null, null, null, 2_100L);
    execute(
        insert,
        "a-1",
        "chat-7",
        "call-1",
        "not json",
        "approved",
        1_000L,
        1_500L,
        "ops",
        "ok",
        null);
    execute(insert, "a-3", "chat-8", "call-3", null, "pending", 2_000L, null, null, null, null);

    JsonNode party = JSON.readTree(arguments);
    JsonNode text = JsonNodeFactory.instance.textNode("not json");
    StoredApproval pending =
        new StoredApproval(
            "chat-7",
            new ApprovalRecord(
                new Approval("a-2", "call-2", "book", party, 2_000L, 9_000L),
                1,
                2,
                ApprovalStatus.PENDING,
                0L,
                null,
                null,
                2_100L));
    StoredApproval decided =
        new StoredApproval(
            "chat-7",
            new ApprovalRecord(
                new Approval("a-1", "call-1", "book", text, 1_000L, 9_000L),
                1,
                2,
                ApprovalStatus.APPROVED,
                1_500L,
                "ops",
                "ok",
                0L));
    StoredApproval other =
        new StoredApproval(
            "chat-8",
            new ApprovalRecord(
                new Approval("a-3", "call-3", "book", null, 2_000L, 9_000L),
                1,
                2,
                ApprovalStatus.PENDING,
                0L,
                null,
                null,
                0L));
    try (Connection connection = reading()) {
      assertThat(read.approvals(connection, null, false)).containsExactly(decided, pending, other);
      assertThat(read.approvals(connection, null, true)).containsExactly(pending, other);
      assertThat(read.approvals(connection, "chat-7", false)).containsExactly(decided, pending);
      assertThat(read.approvals(connection, "chat-7", true)).containsExactly(pending);
      assertThat(read.approvals(connection, "nobody", false)).isEmpty();
    }
  }

  @Test
  void approvalPagesAreOldestFirst_afterTheirKey_tiesByApprovalId() throws Exception {
    String insert =
        "INSERT INTO agent_approvals (approval_id, session_id, run, step, tool_call_id, tool_name,"
            + " status, requested_at, expires_at) VALUES (?, 's', 1, 1, ?, 'book', ?, ?, 9000)";
    // Two requested in the same millisecond: the approval id orders them.
    execute(insert, "b", "call-b", "pending", 2_000L);
    execute(insert, "a", "call-a", "pending", 2_000L);
    execute(insert, "c", "call-c", "approved", 1_000L);
    execute(insert, "d", "call-d", "pending", 3_000L);

    try (Connection connection = reading()) {
      assertThat(ids(read.approvals(connection, true, null, 2))).containsExactly("a", "b");
      assertThat(
              ids(
                  read.approvals(
                      connection, true, new ProjectionQueries.ApprovalKey(2_000L, "a"), 2)))
          .containsExactly("b", "d");
      assertThat(
              ids(
                  read.approvals(
                      connection, true, new ProjectionQueries.ApprovalKey(3_000L, "d"), 2)))
          .isEmpty();
      assertThat(ids(read.approvals(connection, false, null, 10)))
          .containsExactly("c", "a", "b", "d");
      assertThat(
              ids(
                  read.approvals(
                      connection, false, new ProjectionQueries.ApprovalKey(1_000L, "c"), 1)))
          .containsExactly("a");
    }
  }

  private static List<String> ids(List<StoredApproval> approvals) {
    return approvals.stream().map(approval -> approval.record().approval().approvalId()).toList();
  }

  @Test
  void aProjectionFromBeforeTheLaterColumns_readsWithoutThem() throws Exception {
    String older = newDatabaseUrl();
    migrate(older, "3");
    executeOn(older, INSERT_SESSION, "chat-9");
    executeOn(older, INSERT_ENTRY, "chat-9", 1, "finished", "stop", 0, 0L, null, 1_000L);
    try (Connection connection = ProjectionUrl.parse(older, "projection").openReadOnly()) {
      assertThat(read.session(connection, "chat-9")).contains(finishedSession("chat-9"));
      assertThat(read.history(connection, "chat-9", 0))
          .extracting(StoredEntry::step, StoredEntry::transcriptHash)
          .containsExactly(tuple(1, null));
    }
  }

  @Test
  void aDatabaseWithoutTheTables_failsWithAMissingTable() throws Exception {
    String empty = newDatabaseUrl();
    executeOn(empty, "CREATE TABLE unrelated (id INTEGER PRIMARY KEY)");
    try (Connection connection = ProjectionUrl.parse(empty, "projection").openReadOnly()) {
      assertThatThrownBy(() -> read.session(connection, "chat-1"))
          .isInstanceOfSatisfying(
              SQLException.class, e -> assertThat(ProjectionQueries.isMissingTable(e)).isTrue());
    }
    assertThat(ProjectionQueries.isMissingTable(new SQLException("syntax error", "42601")))
        .isFalse();
  }

  @Test
  void aReadOnlyConnectionRefusesWrites() throws Exception {
    try (Connection connection = reading();
        var statement = connection.createStatement()) {
      assertThatThrownBy(() -> statement.executeUpdate("DELETE FROM agent_sessions"))
          .isInstanceOf(SQLException.class);
    }
  }

  static List<Message> transcript() {
    ObjectNode arguments = JSON.createObjectNode().put("party", 2);
    ToolCall call = new ToolCall("call-1", "book_table", arguments);
    return List.of(
        Message.user("Book a table for 2 tonight"),
        Message.assistant(null, List.of(call)),
        Message.toolResult(call, JSON.createObjectNode().put("confirmed", true)),
        Message.assistant("Booked: 19:30, 2 people.", null));
  }
}
