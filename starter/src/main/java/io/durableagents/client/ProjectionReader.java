package io.durableagents.client;

import io.durableagents.conversation.Message;
import io.durableagents.projection.ProjectionException;
import io.durableagents.projection.ProjectionUrl;
import io.durableagents.projection.internal.ProjectionQueries;
import io.durableagents.projection.internal.StoredApproval;
import io.durableagents.projection.internal.StoredEntry;
import io.durableagents.projection.internal.StoredSession;
import io.durableagents.session.RunRecord;
import io.durableagents.session.SessionLifecycle;
import io.durableagents.session.StepRecord;
import io.durableagents.session.internal.ApprovalRecord;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads the projection the worker's store writes (sessions, transcripts, checkpoint history and
 * approvals), read-only: it never creates a database, a table or a row. A SQLite path that is
 * missing or a directory, and a database without the projection's tables, are errors naming the
 * URL, never an empty projection: a wrong URL must not read as "nothing there" (the worker creates
 * the database and its tables when it starts). On PostgreSQL the reader keeps up to {@value
 * #POOL_SIZE} read-only connections between reads, so a back office that reads many times a second
 * does not open a server connection for each read (one idle for a minute is closed on the next
 * read, all of them by {@link #close}); a read that finds none opens one, so a database that is
 * down fails the read at once. A SQLite file is opened per read, which costs next to nothing. The
 * queries, rows and URL parsing are the store's own read model ({@code durable-agents-projection}),
 * so the two cannot drift apart.
 *
 * <p>Supports {@code jdbc:sqlite:PATH} and {@code jdbc:postgresql://HOST[:PORT]/DATABASE} (the
 * latter needs the PostgreSQL JDBC driver on the classpath). Thread-safe.
 */
public final class ProjectionReader implements AutoCloseable {
  /** PostgreSQL connections a reader keeps at most. */
  public static final int POOL_SIZE = 4;

  private final ProjectionUrl url;
  private final ProjectionQueries queries;
  private final KeptConnections kept;
  private volatile boolean closed;

  private ProjectionReader(ProjectionUrl url) {
    this.url = url;
    this.queries = ProjectionQueries.of(url.kind());
    this.kept =
        url.kind() == ProjectionUrl.Kind.POSTGRESQL
            ? new KeptConnections(url::openReadOnly, POOL_SIZE)
            : null;
  }

  /**
   * A reader of the projection at {@code jdbcUrl}. Connects only when reading.
   *
   * @throws IllegalArgumentException if the URL is not a supported one
   * @throws AgentClientException if the URL needs a JDBC driver that is not on the classpath
   */
  public static ProjectionReader open(String jdbcUrl) {
    ProjectionUrl url = ProjectionUrl.parse(jdbcUrl, "projection");
    switch (url.kind()) {
      case SQLITE -> {
        if (url.sqliteInMemory() || url.sqliteResource()) {
          throw new IllegalArgumentException(
              "the projection needs a SQLite database file, got '" + url.url() + "'");
        }
      }
      case POSTGRESQL -> {
        try {
          ClassLoader loader = ProjectionReader.class.getClassLoader();
          Class.forName(url.kind().driverClassName(), true, loader);
        } catch (ClassNotFoundException e) {
          throw new AgentClientException(
              "the PostgreSQL JDBC driver (org.postgresql:postgresql) is not on the classpath:"
                  + " add it to read the projection at "
                  + url.describe(),
              e);
        }
      }
    }
    return new ProjectionReader(url);
  }

  /**
   * The first {@code count} messages of a session's transcript, in order; all of them if {@code
   * count} is negative. Fewer if the projection holds fewer (none for an unknown session).
   *
   * @throws AgentClientException if the projection cannot be read
   */
  public List<Message> messages(String sessionId, int count) {
    requireSessionId(sessionId);
    if (count == 0) {
      return List.of();
    }
    int to = count < 0 ? Integer.MAX_VALUE : count;
    return read(
        "the messages of session " + sessionId,
        connection -> queries.messages(connection, sessionId, 0, to));
  }

  /**
   * The projection's row of a session, if the worker stored any checkpoint of it.
   *
   * @throws AgentClientException if the projection cannot be read
   */
  public Optional<SessionRow> session(String sessionId) {
    requireSessionId(sessionId);
    return read(
        "session " + sessionId,
        connection -> queries.session(connection, sessionId).map(ProjectionReader::sessionRow));
  }

  /** Sessions a page of {@link #sessions} may hold at most. */
  public static final int MAX_PAGE = 500;

  /**
   * A page of the sessions the projection holds, newest activity ({@link SessionRow#updatedAt})
   * first, for session lists: those matching {@code filter}, after {@code cursor} (null: from the
   * start), at most {@code limit}. The cursor of a page stays valid while sessions change: a
   * session that moves to the front is not listed twice on later pages.
   *
   * @param cursor a {@link SessionPage#nextCursor()} this reader returned, or null
   * @param limit 1 to {@value #MAX_PAGE}
   * @throws IllegalArgumentException for a cursor this reader did not return, or a bad limit
   * @throws AgentClientException if the projection cannot be read
   */
  public SessionPage sessions(SessionFilter filter, String cursor, int limit) {
    Objects.requireNonNull(filter, "filter");
    if (limit < 1 || limit > MAX_PAGE) {
      throw new IllegalArgumentException("limit must be 1 to " + MAX_PAGE + ", got " + limit);
    }
    ProjectionQueries.SessionKey after = cursor == null ? null : sessionKey(cursor);
    String status = filter.status() == null ? null : filter.status().value();
    List<StoredSession> rows =
        read(
            "the sessions",
            connection ->
                queries.sessions(
                    connection, status, filter.agent(), filter.idContains(), after, limit + 1));
    List<SessionRow> page = rows.stream().limit(limit).map(ProjectionReader::sessionRow).toList();
    String next = null;
    if (rows.size() > limit) {
      SessionRow last = page.get(page.size() - 1);
      next = PageCursor.encode(last.updatedAt(), last.sessionId());
    }
    return new SessionPage(page, next);
  }

  /**
   * The sessions forked from {@code sessionId}, oldest first (empty when there are none).
   *
   * @throws AgentClientException if the projection cannot be read
   */
  public List<SessionRow> forks(String sessionId) {
    return sessionRows("the forks of session ", sessionId, queries::forks);
  }

  /**
   * The sub-agent sessions of {@code sessionId} (those its runs handed a task to), oldest first;
   * empty when there are none. A sub-agent session names its parent in {@link
   * SessionRow#parentSessionId()} and the call it answers in {@link SessionRow#parentCallId()}.
   *
   * @throws AgentClientException if the projection cannot be read
   */
  public List<SessionRow> subAgents(String sessionId) {
    return sessionRows("the sub-agent sessions of session ", sessionId, queries::subAgents);
  }

  /** The session rows {@code query} answers for {@code sessionId}, read as {@code what}. */
  private List<SessionRow> sessionRows(
      String what, String sessionId, SessionQuery<List<StoredSession>> query) {
    requireSessionId(sessionId);
    return read(
        what + sessionId,
        connection ->
            query.apply(connection, sessionId).stream().map(ProjectionReader::sessionRow).toList());
  }

  /** A query of the read model about one session. */
  private interface SessionQuery<T> {
    T apply(Connection connection, String sessionId) throws SQLException;
  }

  /**
   * The checkpoint history of a session, newest step first: one entry per kept step, each with its
   * full checkpoint (the transcript up to that step included). Empty for an unknown session, and
   * for one whose history the store keeps none of.
   *
   * @param limit at most this many entries (the newest); zero or less means all that are kept
   * @throws AgentClientException if the projection cannot be read, or lacks messages an entry
   *     refers to (rebuild it with {@code agents projection rebuild SESSION})
   */
  public List<HistoryEntry> history(String sessionId, int limit) {
    requireSessionId(sessionId);
    return read(
        "the history of session " + sessionId,
        true,
        connection -> {
          List<StoredEntry> rows = queries.history(connection, sessionId, limit);
          // One transcript per line: the current one, and one per reset that superseded entries.
          Map<String, Integer> needed = new HashMap<>();
          for (StoredEntry row : rows) {
            needed.merge(line(row), row.messageCount(), Math::max);
          }
          Map<String, List<Message>> transcripts = new HashMap<>();
          for (Map.Entry<String, Integer> line : needed.entrySet()) {
            transcripts.put(
                line.getKey(),
                line.getKey().isEmpty()
                    ? contiguousMessages(connection, sessionId, line.getValue())
                    : supersededMessages(connection, sessionId, line.getKey(), line.getValue()));
          }
          Map<Integer, List<StepRecord>> steps =
              rows.isEmpty()
                  ? Map.of()
                  : queries.steps(
                      connection, sessionId, rows.get(rows.size() - 1).step(), rows.get(0).step());
          List<HistoryEntry> entries = new ArrayList<>(rows.size());
          for (StoredEntry row : rows) {
            entries.add(
                historyEntry(
                    sessionId, row, transcripts, steps.getOrDefault(row.step(), List.of())));
          }
          return List.copyOf(entries);
        });
  }

  /**
   * The kept history entry of a session at {@code step}, if the history has it: its checkpoint and
   * whether a reset superseded it.
   *
   * @throws AgentClientException if the projection cannot be read, or lacks messages the entry
   *     refers to
   */
  public Optional<HistoryEntry> historyEntry(String sessionId, int step) {
    requireSessionId(sessionId);
    return read(
        "history entry " + step + " of session " + sessionId,
        true,
        connection -> {
          Optional<StoredEntry> entry = queries.entry(connection, sessionId, step);
          if (entry.isEmpty()) {
            return Optional.empty();
          }
          StoredEntry row = entry.get();
          List<Message> transcript =
              row.supersededBy() == null
                  ? contiguousMessages(connection, sessionId, row.messageCount())
                  : supersededMessages(
                      connection, sessionId, row.supersededBy(), row.messageCount());
          List<StepRecord> steps =
              queries.steps(connection, sessionId, step, step).getOrDefault(step, List.of());
          return Optional.of(historyEntry(sessionId, row, Map.of(line(row), transcript), steps));
        });
  }

  /** An entry with its checkpoint, whose transcript is that of the entry's line. */
  private HistoryEntry historyEntry(
      String sessionId,
      StoredEntry row,
      Map<String, List<Message>> transcripts,
      List<StepRecord> steps) {
    List<Message> transcript = transcripts.get(line(row));
    Checkpoint checkpoint =
        checkpoint(sessionId, row, transcript).toBuilder().setSteps(steps).build();
    return new HistoryEntry(
        row.step(), row.savedAt(), row.status(), checkpoint, row.supersededBy());
  }

  /** The line of an entry: empty for the session's current one, else the reset's name. */
  private static String line(StoredEntry row) {
    return row.supersededBy() == null ? "" : row.supersededBy();
  }

  private List<Message> supersededMessages(
      Connection connection, String sessionId, String resetId, int count) throws SQLException {
    List<Message> result = queries.supersededMessages(connection, sessionId, resetId, count);
    if (result.size() < count) {
      throw new AgentClientException(
          "the projection lacks messages of session "
              + sessionId
              + " that its entries superseded by the "
              + resetId
              + " refer to: they need the first "
              + count
              + " but only "
              + result.size()
              + " are there without a gap");
    }
    return result;
  }

  /**
   * The kept checkpoint of a session at {@code step}, if the history has it.
   *
   * @throws AgentClientException if the projection cannot be read, or lacks messages the entry
   *     refers to
   */
  public Optional<Checkpoint> checkpoint(String sessionId, int step) {
    requireSessionId(sessionId);
    return read(
        "checkpoint " + step + " of session " + sessionId,
        true,
        connection -> {
          Optional<StoredEntry> entry = queries.entry(connection, sessionId, step);
          if (entry.isEmpty()) {
            return Optional.empty();
          }
          int needed = entry.get().messageCount();
          List<Message> transcript =
              entry.get().supersededBy() == null
                  ? contiguousMessages(connection, sessionId, needed)
                  : supersededMessages(connection, sessionId, entry.get().supersededBy(), needed);
          List<StepRecord> steps =
              queries.steps(connection, sessionId, step, step).getOrDefault(step, List.of());
          return Optional.of(
              checkpoint(sessionId, entry.get(), transcript).toBuilder().setSteps(steps).build());
        });
  }

  /**
   * The runs of a session, first run first, with when each started and settled; an unknown session
   * gives an empty list.
   *
   * @throws AgentClientException if the projection cannot be read
   */
  public List<RunRecord> runs(String sessionId) {
    requireSessionId(sessionId);
    return read(
        "the runs of session " + sessionId,
        true,
        connection -> queries.runs(connection, sessionId));
  }

  /** {@link #approvals(String, boolean)} of every session. */
  public List<ApprovalRow> approvals(boolean pendingOnly) {
    return approvals(null, pendingOnly);
  }

  /** Approvals a page of {@link #approvals(boolean, String, int)} may hold at most. */
  public static final int MAX_APPROVAL_PAGE = 10_000;

  /**
   * A page of the approvals of every session, oldest request first (ties by approval id): what a
   * back-office inbox lists, without reading every decided approval there ever was.
   *
   * @param pendingOnly only those that wait for a decision
   * @param cursor an {@link ApprovalPage#nextCursor()} this reader returned, or null
   * @param limit 1 to {@value #MAX_APPROVAL_PAGE}
   * @throws IllegalArgumentException for a cursor this reader did not return, or a bad limit
   * @throws AgentClientException if the projection cannot be read
   */
  public ApprovalPage approvals(boolean pendingOnly, String cursor, int limit) {
    if (limit < 1 || limit > MAX_APPROVAL_PAGE) {
      throw new IllegalArgumentException(
          "limit must be 1 to " + MAX_APPROVAL_PAGE + ", got " + limit);
    }
    ProjectionQueries.ApprovalKey after = cursor == null ? null : approvalKey(cursor);
    List<ApprovalRow> rows = approvalRows(pendingOnly, after, limit + 1);
    List<ApprovalRow> page = rows.stream().limit(limit).toList();
    String next = null;
    if (rows.size() > limit) {
      ApprovalRow last = page.get(page.size() - 1);
      next = PageCursor.encode(last.requestedAt(), last.approvalId());
    }
    return new ApprovalPage(page, next);
  }

  private static ProjectionQueries.SessionKey sessionKey(String cursor) {
    PageCursor.Position position = PageCursor.decode(cursor, "the session list");
    return new ProjectionQueries.SessionKey(position.time(), position.id());
  }

  private static ProjectionQueries.ApprovalKey approvalKey(String cursor) {
    PageCursor.Position position = PageCursor.decode(cursor, "the approvals list");
    return new ProjectionQueries.ApprovalKey(position.time(), position.id());
  }

  private List<ApprovalRow> approvalRows(
      boolean pendingOnly, ProjectionQueries.ApprovalKey after, int limit) {
    return read(
        "approvals",
        connection ->
            queries.approvals(connection, pendingOnly, after, limit).stream()
                .map(ProjectionReader::approvalRow)
                .toList());
  }

  /**
   * Approvals, oldest request first: of one session and the sub-agent sessions below it ({@code
   * null}: of every session), optionally only those that wait for a decision. This is what a
   * back-office inbox lists.
   *
   * @throws AgentClientException if the projection cannot be read
   */
  public List<ApprovalRow> approvals(String sessionId, boolean pendingOnly) {
    if (sessionId != null) {
      requireSessionId(sessionId);
    }
    return read(
        "approvals",
        connection ->
            queries.approvals(connection, sessionId, pendingOnly).stream()
                .map(ProjectionReader::approvalRow)
                .toList());
  }

  /** The first {@code count} messages, which must all be there, seq 0 up without a gap. */
  private List<Message> contiguousMessages(Connection connection, String sessionId, int count)
      throws SQLException {
    List<Message> result = queries.contiguousMessages(connection, sessionId, 0, count);
    if (result.size() < count) {
      throw new AgentClientException(
          "the projection lacks messages of session "
              + sessionId
              + ": its history needs the first "
              + count
              + " but only "
              + result.size()
              + " are there without a gap; rebuild it from"
              + " the workflow history with 'agents projection rebuild "
              + sessionId
              + "'");
    }
    return result;
  }

  private static SessionRow sessionRow(StoredSession row) {
    return SessionRow.newBuilder()
        .setSessionId(row.sessionId())
        .setAgent(row.agent())
        .setStatus(row.status())
        .setCurrentRun(row.currentRun())
        .setLastStep(row.lastStep())
        .setMessageCount(row.messageCount())
        .setInputTokens(row.usage().inputTokens())
        .setOutputTokens(row.usage().outputTokens())
        .setUpdatedAt(row.updatedAt())
        .setParentSessionId(row.parentSessionId())
        .setParentStep(row.parentStep())
        .setForkPatch(row.forkPatch())
        .setLifecycle(row.closedAt() == null ? SessionLifecycle.OPEN : SessionLifecycle.CLOSED)
        .setResetTo(row.resetTo())
        .setParentCallId(row.parentCallId())
        .build();
  }

  /** The entry's full checkpoint: its transcript is the first {@code messageCount} messages. */
  private static Checkpoint checkpoint(
      String sessionId, StoredEntry row, List<Message> transcript) {
    return Checkpoint.newBuilder()
        .setSessionId(sessionId)
        .setStepIndex(row.step())
        .setRun(row.run())
        .setStatus(row.status())
        .setFinishReason(row.finishReason())
        .setMessages(transcript.subList(0, row.messageCount()))
        .setBusinessState(row.businessState())
        .setUsage(row.usage())
        .setFingerprint(row.fingerprint())
        .setSavedAt(row.savedAt())
        .setRunConfig(row.runConfig())
        .setDrift(row.drift())
        .build();
  }

  private static ApprovalRow approvalRow(StoredApproval row) {
    ApprovalRecord record = row.record();
    return ApprovalRow.newBuilder()
        .setSessionId(row.sessionId())
        .setApprovalId(record.approval().approvalId())
        .setRun(record.run())
        .setStep(record.step())
        .setToolCallId(record.approval().toolCallId())
        .setToolName(record.approval().toolName())
        .setInput(record.approval().input())
        .setStatus(record.status())
        .setRequestedAt(record.approval().requestedAt())
        .setExpiresAt(record.approval().expiresAt())
        .setDecidedAt(record.decidedAt())
        .setDecidedBy(record.decidedBy())
        .setNote(record.note())
        .setNotifiedAt(record.notifiedAt())
        .setParentSessionId(row.parentSessionId())
        .build();
  }

  /** Nothing stays open between reads; after closing, reads fail. */
  @Override
  public void close() {
    closed = true;
    if (kept != null) {
      kept.close();
    }
  }

  /** The projection's URL without what may be secret (see {@link ProjectionUrl#describe()}). */
  @Override
  public String toString() {
    return "ProjectionReader{" + url.describe() + "}";
  }

  private <T> T read(String what, Query<T> query) {
    return read(what, false, query);
  }

  /**
   * Runs {@code query} on a read-only connection of its own; with {@code snapshot}, in one
   * transaction whose statements all see the same state of the database (several statements that
   * must agree, such as history entries and the messages they refer to).
   */
  private <T> T read(String what, boolean snapshot, Query<T> query) {
    if (closed) {
      throw new IllegalStateException("the projection reader is closed");
    }
    try {
      Connection connection = kept != null ? kept.take() : url.openReadOnly();
      boolean reusable = false;
      try {
        T result = snapshot ? inSnapshot(connection, query) : query.run(connection);
        reusable = true;
        return result;
      } catch (ProjectionException e) {
        reusable = true; // rows the read model cannot decode: the connection is fine
        throw e;
      } finally {
        if (kept != null && reusable) {
          kept.give(connection);
        } else {
          KeptConnections.closeQuietly(connection);
        }
      }
    } catch (ProjectionException e) {
      // The reader's error, with the read model's message and cause.
      throw new AgentClientException(e.getMessage(), e.getCause());
    } catch (SQLException e) {
      if (ProjectionQueries.isMissingTable(e)) {
        throw new AgentClientException(
            "the database at "
                + url.describe()
                + " holds no projection ("
                + e.getMessage()
                + "): the worker creates its tables when it starts; point the client at the"
                + " worker's projection",
            e);
      }
      throw new AgentClientException(
          "cannot read "
              + what
              + " from the projection at "
              + url.describe()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Runs {@code query} in one transaction whose statements all see the same state of the database,
   * and leaves the connection in auto-commit as it found it.
   */
  private <T> T inSnapshot(Connection connection, Query<T> query) throws SQLException {
    connection.setAutoCommit(false);
    try {
      if (url.kind() == ProjectionUrl.Kind.POSTGRESQL) {
        // PostgreSQL's default (read committed) takes a snapshot per statement; this
        // transaction's level only, so a kept connection keeps the server's default.
        try (Statement level = connection.createStatement()) {
          level.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
        }
      }
      return query.run(connection);
    } finally {
      connection.rollback();
      connection.setAutoCommit(true);
    }
  }

  private static void requireSessionId(String sessionId) {
    if (sessionId == null || sessionId.isBlank()) {
      throw new IllegalArgumentException("sessionId must not be blank");
    }
  }

  @FunctionalInterface
  private interface Query<T> {
    T run(Connection connection) throws SQLException;
  }
}
