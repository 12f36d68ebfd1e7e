package io.durableagents.app.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.ToolCall;
import io.durableagents.session.ApprovalStatus;
import io.durableagents.session.RunStatus;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;

/**
 * Fills a freshly migrated projection with a back office's worth of sessions: each with a
 * four-message transcript (user, assistant calling a tool, the tool's result, then an answer or a
 * call that waits for approval), two history entries, some forks, pending approvals spread evenly
 * over the sessions and some decided ones. Plain JDBC batches in one transaction, rewritten by the
 * PostgreSQL driver into multi-row inserts: the store's own save path (one transaction per
 * checkpoint) would take minutes for 10,000 sessions and measures nothing the console does.
 *
 * <p>Rows are written as the store writes them ({@code JdbcAgentStore}): message bodies are the
 * {@link Message} JSON of the store's mapper, times are epoch milliseconds, JSON columns are JSON
 * text, so the readers read them as they read a worker's.
 */
final class ConsoleSeed {
  static final String[] AGENTS = {"support", "billing", "travel", "research"};

  /** Settled statuses of sessions without a pending approval, in a fixed rotation. */
  private static final RunStatus[] OTHER_STATUSES = {
    RunStatus.FINISHED, RunStatus.IDLE, RunStatus.FINISHED, RunStatus.FINISHED,
    RunStatus.IDLE, RunStatus.IN_PROGRESS, RunStatus.FINISHED, RunStatus.FAILED,
    RunStatus.FINISHED, RunStatus.IDLE, RunStatus.FINISHED, RunStatus.CANCELLED
  };

  /** Every this many sessions, one is a fork of the session before it. */
  static final int FORK_EVERY = 500;

  static final int MESSAGES_PER_SESSION = 4;
  static final int CHECKPOINTS_PER_SESSION = 2;

  /**
   * Same settings as the store's {@code MessageCodec}: the bodies must be byte-for-byte its own.
   */
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final int BATCH = 1_000;
  private static final long STEP_GAP_MS = 37_000;
  private static final long EXPIRY_MS = 7L * 24 * 3600 * 1000;

  private final int sessions;
  private final int pending;
  private final long base;

  /** What was written, for the bench's checks of the console's answers. */
  record Seeded(
      int sessions,
      int pending,
      int decided,
      int forks,
      int awaitingApproval,
      long messages,
      long checkpoints,
      List<String> sessionIds) {

    /** Ids of the seeded sessions that contain {@code part}. */
    long idsContaining(String part) {
      return sessionIds.stream().filter(id -> id.contains(part)).count();
    }
  }

  /**
   * A seed of {@code sessions} sessions.
   *
   * @param sessions the sessions to write
   * @param pending how many of them wait for a decision (one pending approval each)
   * @param now the clock: every session's activity lies in the days before it, and no pending
   *     approval has expired by then
   */
  ConsoleSeed(int sessions, int pending, long now) {
    if (sessions < 1 || pending < 0 || pending > sessions) {
      throw new IllegalArgumentException(
          "need 1 or more sessions and 0 to that many pending approvals, got "
              + sessions
              + " and "
              + pending);
    }
    this.sessions = sessions;
    this.pending = pending;
    this.base = now - (sessions + 2L) * STEP_GAP_MS;
  }

  static String sessionId(int i) {
    return String.format(Locale.ROOT, "%s-%05d", AGENTS[i % AGENTS.length], i);
  }

  /** Session {@code i} waits for approval: every {@code sessions / pending}-th one. */
  boolean awaiting(int i) {
    if (pending == 0) {
      return false;
    }
    long stride = sessions / pending;
    return i % stride == 0 && i / stride < pending;
  }

  /** A fork of the session before it (which is never one that waits for approval). */
  boolean fork(int i) {
    return i % FORK_EVERY == FORK_EVERY - 1 && !awaiting(i) && !awaiting(i - 1);
  }

  /** A settled session that had its first tool call approved or rejected. */
  boolean decided(int i) {
    return !awaiting(i) && i % 20 == 3;
  }

  RunStatus status(int i) {
    return awaiting(i) ? RunStatus.AWAITING_APPROVAL : OTHER_STATUSES[i % OTHER_STATUSES.length];
  }

  /** The newest checkpoint's time: strictly increasing with {@code i}, so the order is known. */
  long updatedAt(int i) {
    return base + i * STEP_GAP_MS + (i * 7919L) % 1000;
  }

  /** Writes every row in one transaction on a connection to {@code jdbcUrl}. */
  Seeded write(String jdbcUrl) throws SQLException {
    Properties properties = new Properties();
    // Batches go as multi-row INSERTs: one round trip per batch instead of per row.
    properties.setProperty("reWriteBatchedInserts", "true");
    try (Connection connection = DriverManager.getConnection(jdbcUrl, properties)) {
      connection.setAutoCommit(false);
      Seeded seeded = write(connection);
      connection.commit();
      return seeded;
    }
  }

  private Seeded write(Connection connection) throws SQLException {
    List<String> ids = new ArrayList<>(sessions);
    int forks = 0;
    int decided = 0;
    int awaitingCount = 0;
    try (PreparedStatement session = connection.prepareStatement(INSERT_SESSION);
        PreparedStatement message = connection.prepareStatement(INSERT_MESSAGE);
        PreparedStatement checkpoint = connection.prepareStatement(INSERT_CHECKPOINT);
        PreparedStatement approval = connection.prepareStatement(INSERT_APPROVAL)) {
      for (int i = 0; i < sessions; i++) {
        String id = sessionId(i);
        ids.add(id);
        boolean isFork = fork(i);
        forks += isFork ? 1 : 0;
        awaitingCount += awaiting(i) ? 1 : 0;
        addSession(session, i, isFork);
        List<Message> transcript = transcript(i, isFork);
        for (int seq = 0; seq < transcript.size(); seq++) {
          Message m = transcript.get(seq);
          message.setString(1, id);
          message.setInt(2, seq);
          message.setInt(3, 1);
          message.setInt(4, seq < 2 ? 1 : 2);
          message.setString(5, m.role().value());
          message.setString(6, encode(m));
          message.addBatch();
        }
        addCheckpoint(checkpoint, i, 1, 2, RunStatus.IN_PROGRESS, null);
        addCheckpoint(
            checkpoint,
            i,
            2,
            MESSAGES_PER_SESSION,
            status(i),
            status(i) == RunStatus.FINISHED ? "stop" : null);
        if (awaiting(i)) {
          addApproval(approval, i, ApprovalStatus.PENDING);
        } else if (decided(i)) {
          addApproval(approval, i, i % 40 == 3 ? ApprovalStatus.APPROVED : ApprovalStatus.REJECTED);
          decided++;
        }
        if ((i + 1) % BATCH == 0) {
          // Sessions first: each batch's other rows refer to sessions already sent.
          executeAll(session, message, checkpoint, approval);
        }
      }
      executeAll(session, message, checkpoint, approval);
    }
    return new Seeded(
        sessions,
        pending,
        decided,
        forks,
        awaitingCount,
        (long) sessions * MESSAGES_PER_SESSION,
        (long) sessions * CHECKPOINTS_PER_SESSION,
        List.copyOf(ids));
  }

  private static void executeAll(PreparedStatement... statements) throws SQLException {
    for (PreparedStatement statement : statements) {
      statement.executeBatch();
    }
  }

  private void addSession(PreparedStatement insert, int i, boolean isFork) throws SQLException {
    String id = sessionId(i);
    long updatedAt = updatedAt(i);
    insert.setString(1, id);
    insert.setString(2, UUID.nameUUIDFromBytes(id.getBytes(StandardCharsets.UTF_8)).toString());
    insert.setString(3, AGENTS[i % AGENTS.length]);
    insert.setString(4, status(i).value());
    insert.setInt(5, 1);
    insert.setInt(6, 2);
    insert.setInt(7, MESSAGES_PER_SESSION);
    insert.setLong(8, inputTokens(i, 2));
    insert.setLong(9, outputTokens(i, 2));
    insert.setLong(10, updatedAt - 2 * STEP_GAP_MS / 3);
    insert.setLong(11, updatedAt);
    if (isFork) {
      insert.setString(12, sessionId(i - 1));
      insert.setInt(13, 1);
      insert.setString(14, "businessState");
    } else {
      insert.setNull(12, Types.VARCHAR);
      insert.setNull(13, Types.INTEGER);
      insert.setNull(14, Types.VARCHAR);
    }
    insert.addBatch();
  }

  private void addCheckpoint(
      PreparedStatement insert,
      int i,
      int step,
      int messageCount,
      RunStatus status,
      String finishReason)
      throws SQLException {
    insert.setString(1, sessionId(i));
    insert.setInt(2, step);
    insert.setInt(3, 1);
    insert.setString(4, status.value());
    if (finishReason == null) {
      insert.setNull(5, Types.VARCHAR);
    } else {
      insert.setString(5, finishReason);
    }
    insert.setInt(6, messageCount);
    insert.setLong(7, inputTokens(i, step));
    insert.setLong(8, outputTokens(i, step));
    insert.setString(9, businessState(i, step).toString());
    insert.setLong(10, updatedAt(i) - (2 - step) * STEP_GAP_MS / 3);
    insert.setInt(11, step);
    insert.setLong(12, inputTokens(i, step));
    insert.setLong(13, outputTokens(i, step));
    insert.addBatch();
  }

  private void addApproval(PreparedStatement insert, int i, ApprovalStatus status)
      throws SQLException {
    boolean isPending = status == ApprovalStatus.PENDING;
    ToolCall call = isPending ? refundCall(i) : lookupCall(i);
    long requestedAt = isPending ? updatedAt(i) : updatedAt(i) - 2 * STEP_GAP_MS / 3;
    insert.setString(1, approvalId(i));
    insert.setString(2, sessionId(i));
    insert.setInt(3, 1);
    insert.setInt(4, isPending ? 2 : 1);
    insert.setString(5, call.id());
    insert.setString(6, call.name());
    insert.setString(7, call.arguments().toString());
    insert.setString(8, status.value());
    insert.setLong(9, requestedAt);
    insert.setLong(10, requestedAt + EXPIRY_MS);
    if (isPending) {
      insert.setNull(11, Types.BIGINT);
      insert.setNull(12, Types.VARCHAR);
      insert.setNull(13, Types.VARCHAR);
    } else {
      insert.setLong(11, requestedAt + 90_000);
      insert.setString(12, i % 3 == 0 ? "alice" : "bob");
      insert.setString(
          13, status == ApprovalStatus.APPROVED ? "known customer" : "needs a receipt first");
    }
    insert.addBatch();
  }

  static String approvalId(int i) {
    return String.format(Locale.ROOT, "appr-%05d", i);
  }

  /**
   * The transcript: the question, a lookup, its result, then the answer (or, for a session waiting
   * for approval, a refund call). A fork's first two messages are its parent's, as a fork from step
   * 1 copies them.
   */
  List<Message> transcript(int i, boolean isFork) {
    int first = isFork ? i - 1 : i;
    ToolCall lookup = lookupCall(first);
    Message last =
        awaiting(i)
            ? Message.assistant(
                "Order " + order(i) + " qualifies for a refund.", List.of(refundCall(i)))
            : Message.assistant(
                "Order " + order(i) + " shipped on day " + (i % 28 + 1) + " and arrives soon.",
                List.of());
    return List.of(
        Message.user("Where is my order " + order(first) + "? It is late."),
        Message.assistant(null, List.of(lookup)),
        Message.toolResult(lookup, lookupResult(i)),
        last);
  }

  private static ToolCall lookupCall(int i) {
    ObjectNode arguments = JSON.createObjectNode().put("orderId", order(i));
    return new ToolCall(String.format(Locale.ROOT, "call_%05d_1", i), "lookup_order", arguments);
  }

  private static ToolCall refundCall(int i) {
    ObjectNode arguments =
        JSON.createObjectNode()
            .put("orderId", order(i))
            .put("amount", 10 + i % 190)
            .put("currency", "EUR")
            .put("reason", "parcel late by " + (i % 9 + 2) + " days");
    return new ToolCall(String.format(Locale.ROOT, "call_%05d_2", i), "refund_order", arguments);
  }

  private static JsonNode lookupResult(int i) {
    ObjectNode result = JSON.createObjectNode();
    result.put("orderId", order(i)).put("status", "shipped").put("carrier", "DHL");
    result.putArray("items").add("book").add(i % 2 == 0 ? "lamp" : "mug");
    return result;
  }

  private static JsonNode businessState(int i, int step) {
    ObjectNode state = JSON.createObjectNode();
    state.put("customer", "c-" + (i % 997)).put("orderId", order(i)).put("step", step);
    return state;
  }

  private static String order(int i) {
    return String.format(Locale.ROOT, "A%06d", 100_000 + i);
  }

  private static long inputTokens(int i, int step) {
    return step * (400L + i % 300);
  }

  private static long outputTokens(int i, int step) {
    return step * (60L + i % 90);
  }

  private static String encode(Message message) {
    try {
      return JSON.writeValueAsString(message);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a " + message.role() + " message as JSON", e);
    }
  }

  private static final String INSERT_SESSION =
      "INSERT INTO agent_sessions (session_id, execution_id, agent, status, current_run,"
          + " last_step, message_count, input_tokens, output_tokens, created_at, updated_at,"
          + " parent_session_id, parent_step, fork_patch)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

  private static final String INSERT_MESSAGE =
      "INSERT INTO agent_messages (session_id, seq, run, step, role, body)"
          + " VALUES (?, ?, ?, ?, ?, ?)";

  private static final String INSERT_CHECKPOINT =
      "INSERT INTO agent_checkpoints (session_id, step, run, status, finish_reason,"
          + " message_count, input_tokens, output_tokens, business_state, saved_at, run_steps,"
          + " run_input_tokens, run_output_tokens)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

  private static final String INSERT_APPROVAL =
      "INSERT INTO agent_approvals (approval_id, session_id, run, step, tool_call_id, tool_name,"
          + " input, status, requested_at, expires_at, decided_at, decided_by, note)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
}
