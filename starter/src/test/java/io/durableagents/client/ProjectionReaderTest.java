package io.durableagents.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.ToolCall;
import io.durableagents.session.RunStatus;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConfig;

class ProjectionReaderTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void readsSessionsAndMessagesWrittenByTheStore() throws Exception {
    Path file = dir.resolve("projection.db");
    List<Message> transcript = transcript();
    try (Connection writer = createProjection(file)) {
      insertSession(writer, "chat-1", 7, transcript.size());
      // Written out of order, as concurrent saves may land.
      for (int seq = transcript.size() - 1; seq >= 0; seq--) {
        insertMessage(writer, "chat-1", seq, JSON.writeValueAsString(transcript.get(seq)));
      }
      insertMessage(writer, "other", 0, JSON.writeValueAsString(Message.user("not mine")));

      // While the writer is still connected (WAL files present) ...
      try (ProjectionReader reader = ProjectionReader.open("jdbc:sqlite:" + file)) {
        assertThat(reader.messages("chat-1", -1)).containsExactlyElementsOf(transcript);
      }
    }

    // ... and after it is gone.
    try (ProjectionReader reader = ProjectionReader.open("jdbc:sqlite:" + file)) {
      assertThat(reader.messages("chat-1", 2)).containsExactlyElementsOf(transcript.subList(0, 2));
      assertThat(reader.messages("chat-1", -1)).containsExactlyElementsOf(transcript);
      assertThat(reader.messages("chat-1", 100)).containsExactlyElementsOf(transcript);
      assertThat(reader.messages("chat-1", 0)).isEmpty();
      assertThat(reader.messages("nobody", -1)).isEmpty();

      assertThat(reader.session("chat-1"))
          .contains(
              SessionRow.newBuilder()
                  .setSessionId("chat-1")
                  .setAgent("concierge")
                  .setStatus(RunStatus.FINISHED)
                  .setCurrentRun(2)
                  .setLastStep(7)
                  .setMessageCount(4)
                  .setInputTokens(120)
                  .setOutputTokens(45)
                  .setUpdatedAt(1_700L)
                  .build());
      assertThat(reader.session("nobody")).isEmpty();
    }
  }

  @Test
  void ignoresPropertiesItDoesNotKnow() throws Exception {
    Path file = dir.resolve("projection.db");
    try (Connection writer = createProjection(file)) {
      insertMessage(writer, "chat-2", 0, "{\"role\":\"user\",\"text\":\"hi\",\"addedLater\":42}");
    }
    try (ProjectionReader reader = ProjectionReader.open("jdbc:sqlite:" + file)) {
      assertThat(reader.messages("chat-2", 1)).containsExactly(Message.user("hi"));
    }
  }

  @Test
  void aMissingDatabase_isAnErrorNamingIt_andIsNotCreated() {
    Path file = dir.resolve("not-yet").resolve("projection.db");
    try (ProjectionReader reader = ProjectionReader.open("jdbc:sqlite:" + file)) {
      assertThatThrownBy(() -> reader.messages("chat-1", -1))
          .isInstanceOf(AgentClientException.class)
          .hasMessage(
              "no projection database at "
                  + file
                  + " (jdbc:sqlite:"
                  + file
                  + "): the worker creates it"
                  + " when it starts; point the client at the worker's projection");
      assertThatThrownBy(() -> reader.session("chat-1")).isInstanceOf(AgentClientException.class);
      assertThatThrownBy(() -> reader.history("chat-1", 0))
          .isInstanceOf(AgentClientException.class);
      assertThatThrownBy(() -> reader.approvals(true)).isInstanceOf(AgentClientException.class);
    }
    assertThat(file).doesNotExist();
    assertThat(file.getParent()).doesNotExist();

    Path sibling = dir.resolve("missing.db");
    try (ProjectionReader reader = ProjectionReader.open("jdbc:sqlite:" + sibling)) {
      assertThatThrownBy(() -> reader.checkpoint("chat-1", 1))
          .hasMessageContaining(sibling.toString());
    }
    assertThat(sibling).doesNotExist();
  }

  @Test
  void aDirectory_isAnErrorNamingIt() {
    try (ProjectionReader reader = ProjectionReader.open("jdbc:sqlite:" + dir)) {
      assertThatThrownBy(() -> reader.approvals(false))
          .isInstanceOf(AgentClientException.class)
          .hasMessage(
              "the projection jdbc:sqlite:"
                  + dir
                  + " names a directory, not a SQLite database file");
    }
  }

  @Test
  void aDatabaseWithoutTheTables_isAnErrorNamingIt() throws Exception {
    Path file = dir.resolve("empty.db");
    try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement statement = other.createStatement()) {
      statement.execute("CREATE TABLE unrelated (id INTEGER PRIMARY KEY)");
    }
    try (ProjectionReader reader = ProjectionReader.open("jdbc:sqlite:" + file)) {
      assertThatThrownBy(() -> reader.messages("chat-1", -1))
          .isInstanceOf(AgentClientException.class)
          .hasMessageStartingWith("the database at jdbc:sqlite:" + file + " holds no projection (")
          .hasMessageContaining("no such table: agent_messages");
      assertThatThrownBy(() -> reader.session("chat-1"))
          .hasMessageContaining("no such table: agent_sessions");
    }
  }

  @Test
  void theReaderDoesNotWrite_andReadsLineage() throws Exception {
    Path file = dir.resolve("projection.db");
    try (Connection writer = createProjection(file)) {
      insertSession(writer, "chat-3", 1, 0);
      insertSession(writer, "chat-3.fork", 1, 0);
      try (Statement lineage = writer.createStatement()) {
        lineage.execute(
            "UPDATE agent_sessions SET parent_session_id = 'chat-3', parent_step = 1,"
                + " fork_patch = 'businessState appendInput' WHERE session_id = 'chat-3.fork'");
      }
    }
    try (ProjectionReader reader = ProjectionReader.open("jdbc:sqlite:" + file)) {
      assertThat(reader.session("chat-3").orElseThrow().parentSessionId()).isNull();
      assertThat(reader.session("chat-3.fork").orElseThrow())
          .extracting(SessionRow::parentSessionId, SessionRow::parentStep, SessionRow::forkPatch)
          .containsExactly("chat-3", 1, "businessState appendInput");
    }
    // A connection opened the way the reader opens them refuses writes.
    SQLiteConfig config = new SQLiteConfig();
    config.setReadOnly(true);
    try (Connection readOnly =
            DriverManager.getConnection("jdbc:sqlite:" + file, config.toProperties());
        Statement statement = readOnly.createStatement()) {
      assertThatThrownBy(() -> statement.execute("DELETE FROM agent_sessions"))
          .isInstanceOf(SQLException.class);
    }
  }

  @Test
  void aProjectionFromBeforeTheForkPatchColumn_readsSessionsWithoutIt() throws Exception {
    Path file = dir.resolve("older.db");
    try (Connection writer = createProjection(file, MIGRATIONS.subList(0, 3))) {
      insertSession(writer, "chat-4", 1, 0);
    }
    try (ProjectionReader reader = ProjectionReader.open("jdbc:sqlite:" + file)) {
      assertThat(reader.session("chat-4").orElseThrow())
          .extracting(SessionRow::sessionId, SessionRow::forkPatch)
          .containsExactly("chat-4", null);
    }
  }

  @Test
  void unsupportedUrlsGetAClearError() {
    assertThatThrownBy(() -> ProjectionReader.open("jdbc:h2:mem:x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jdbc:sqlite:")
        .hasMessageContaining("jdbc:postgresql:");
    assertThatThrownBy(() -> ProjectionReader.open(""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ProjectionReader.open("jdbc:sqlite::memory:"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ProjectionReader.open("jdbc:oracle:thin:scott/tiger@db?password=x1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("password=x1");
  }

  @Test
  void aClosedReaderRefusesToRead() {
    ProjectionReader reader = ProjectionReader.open("jdbc:sqlite:" + dir.resolve("p.db"));
    reader.close();
    assertThatThrownBy(() -> reader.session("chat-1")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void toString_namesTheUrl_withoutWhatMayBeSecret() {
    try (ProjectionReader reader =
        ProjectionReader.open("jdbc:sqlite:" + dir.resolve("p.db") + "?password=x1")) {
      assertThat(reader.toString()).contains("jdbc:sqlite:", "p.db").doesNotContain("x1");
    }
  }

  private static List<Message> transcript() {
    ObjectNode arguments = JSON.createObjectNode().put("party", 2);
    ToolCall call = new ToolCall("call-1", "book_table", arguments);
    return List.of(
        Message.user("Book a table for 2 tonight"),
        Message.assistant(null, List.of(call)),
        Message.toolResult(call, JSON.createObjectNode().put("confirmed", true)),
        Message.assistant("Booked: 19:30, 2 people.", null));
  }

  /** A projection database in WAL mode with the store's schema, as the worker leaves it. */
  private static Connection createProjection(Path file) throws SQLException, IOException {
    return createProjection(file, MIGRATIONS);
  }

  private static Connection createProjection(Path file, List<String> migrations)
      throws SQLException, IOException {
    Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
    try (Statement statement = connection.createStatement()) {
      statement.execute("PRAGMA journal_mode=WAL");
      for (String sql : schemaStatements(migrations)) {
        statement.execute(sql);
      }
    }
    return connection;
  }

  /** The store's own migrations, in order (the activities module is a test dependency). */
  private static final List<String> MIGRATIONS =
      List.of(
          "V1__sessions_messages_checkpoints.sql",
          "V2__approvals.sql",
          "V3__prune_indexes.sql",
          "V4__fork_patch_and_transcript_hash.sql");

  private static List<String> schemaStatements(List<String> migrations) throws IOException {
    StringBuilder script = new StringBuilder();
    for (String migration : migrations) {
      try (InputStream in =
          ProjectionReaderTest.class.getResourceAsStream(
              "/io/durableagents/store/migration/" + migration)) {
        assertThat(in).as(migration + " on the test classpath").isNotNull();
        script.append(new String(in.readAllBytes(), StandardCharsets.UTF_8)).append('\n');
      }
    }
    StringBuilder withoutComments = new StringBuilder();
    for (String line : script.toString().split("\n", -1)) {
      if (!line.strip().startsWith("--")) {
        withoutComments.append(line).append('\n');
      }
    }
    return Arrays.stream(withoutComments.toString().split(";"))
        .map(String::strip)
        .filter(sql -> !sql.isEmpty())
        .toList();
  }

  private static void insertSession(
      Connection connection, String sessionId, int lastStep, int messageCount) throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO agent_sessions (session_id, execution_id, agent, status, current_run,"
                + " last_step, message_count, input_tokens, output_tokens, fingerprint,"
                + " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      insert.setString(1, sessionId);
      insert.setString(2, "exec-1");
      insert.setString(3, "concierge");
      insert.setString(4, "finished");
      insert.setInt(5, 2);
      insert.setInt(6, lastStep);
      insert.setInt(7, messageCount);
      insert.setLong(8, 120);
      insert.setLong(9, 45);
      insert.setString(10, "fp");
      insert.setLong(11, 1_000L);
      insert.setLong(12, 1_700L);
      insert.executeUpdate();
    }
  }

  private static void insertMessage(Connection connection, String sessionId, int seq, String body)
      throws SQLException, IOException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO agent_messages (session_id, seq, run, step, role, body)"
                + " VALUES (?, ?, 1, 0, ?, ?)")) {
      insert.setString(1, sessionId);
      insert.setInt(2, seq);
      insert.setString(3, JSON.readTree(body).path("role").asText());
      insert.setString(4, body);
      insert.executeUpdate();
    }
  }
}
