package io.durableagents.projection.internal;

import io.durableagents.conversation.Message;
import io.durableagents.projection.ProjectionException;
import io.durableagents.projection.ProjectionUrl;
import io.durableagents.session.RunRecord;
import io.durableagents.session.StepRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The read side of the projection: its queries and the rows they map to, on a connection the caller
 * holds (a pooled one of the store, a read-only one of the reader) and in whatever transaction it
 * opened. What a missing row or message means is the caller's to say. Stateless and thread-safe.
 *
 * <p>Failures of the database are {@link SQLException}s; rows that do not map (a message or JSON
 * column that does not decode) are {@link ProjectionException}s.
 */
public final class ProjectionQueries {
  private static final ProjectionQueries SQLITE = new ProjectionQueries(true);
  private static final ProjectionQueries PORTABLE = new ProjectionQueries(false);

  /** Whether message bodies are read as the database's UTF-8 bytes (SQLite) instead of Strings. */
  private final boolean bodiesAsBytes;

  private ProjectionQueries(boolean bodiesAsBytes) {
    this.bodiesAsBytes = bodiesAsBytes;
  }

  /** The queries for a database of {@code kind}: on SQLite, bodies decode from its bytes. */
  public static ProjectionQueries of(ProjectionUrl.Kind kind) {
    return kind == ProjectionUrl.Kind.SQLITE ? SQLITE : PORTABLE;
  }

  /** The queries for a database of any kind (a data source the caller gave). */
  public static ProjectionQueries portable() {
    return PORTABLE;
  }

  /**
   * The stored messages with {@code from <= seq < to}, in order; gaps are skipped. Use {@code
   * Integer.MAX_VALUE} as {@code to} for all of them.
   */
  public List<Message> messages(Connection connection, String sessionId, int from, int to)
      throws SQLException {
    return messages(connection, sessionId, from, to, false);
  }

  /**
   * The messages from seq {@code from} on, up to {@code to} (exclusive), that follow one another
   * without a gap: fewer than {@code to - from} when one is missing (the rest is not decoded).
   */
  public List<Message> contiguousMessages(Connection connection, String sessionId, int from, int to)
      throws SQLException {
    return messages(connection, sessionId, from, to, true);
  }

  /**
   * The first {@code count} messages of the transcript that the entries superseded by {@code
   * resetId} refer to, as the reset copied them, up to the first gap.
   */
  public List<Message> supersededMessages(
      Connection connection, String sessionId, String resetId, int count) throws SQLException {
    List<Message> result = new ArrayList<>(Math.min(Math.max(0, count), 1024));
    try (PreparedStatement select = connection.prepareStatement(ReadSql.SUPERSEDED_MESSAGES)) {
      select.setString(1, sessionId);
      select.setString(2, resetId);
      select.setInt(3, count);
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          int seq = rows.getInt(1);
          if (seq != result.size()) {
            break;
          }
          result.add(
              bodiesAsBytes
                  ? Rows.message(sessionId, seq, rows.getBytes(2))
                  : Rows.message(sessionId, seq, rows.getString(2)));
        }
      }
    }
    return List.copyOf(result);
  }

  private List<Message> messages(
      Connection connection, String sessionId, int from, int to, boolean contiguous)
      throws SQLException {
    // Sized for the usual transcript, not for a caller's bound (Integer.MAX_VALUE for all of them).
    List<Message> result = new ArrayList<>(Math.min(Math.max(0, to - from), 1024));
    try (PreparedStatement select = connection.prepareStatement(ReadSql.MESSAGES)) {
      select.setString(1, sessionId);
      select.setInt(2, from);
      select.setInt(3, to);
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          int seq = rows.getInt(1);
          if (contiguous && seq != from + result.size()) {
            break;
          }
          result.add(
              bodiesAsBytes
                  ? Rows.message(sessionId, seq, rows.getBytes(2))
                  : Rows.message(sessionId, seq, rows.getString(2)));
        }
      }
    }
    return List.copyOf(result);
  }

  /** The row of a session, if any save of it reached the projection. */
  public Optional<StoredSession> session(Connection connection, String sessionId)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(ReadSql.SESSION)) {
      select.setString(1, sessionId);
      try (ResultSet row = select.executeQuery()) {
        return row.next() ? Optional.of(Rows.session(row)) : Optional.empty();
      }
    }
  }

  /**
   * One page of the session list, newest {@code updated_at} first (ties by session id, descending):
   * the sessions matching every given filter (null: any) that come after {@code after} in that
   * order (null: from the start). Keyset pagination, so a page costs the same however deep it is.
   *
   * @param idContains a part of the session id, matched literally
   */
  public List<StoredSession> sessions(
      Connection connection,
      String status,
      String agent,
      String idContains,
      SessionKey after,
      int limit)
      throws SQLException {
    List<String> conditions = new ArrayList<>();
    List<Object> parameters = new ArrayList<>();
    if (status != null) {
      conditions.add("status = ?");
      parameters.add(status);
    }
    if (agent != null) {
      conditions.add("agent = ?");
      parameters.add(agent);
    }
    if (idContains != null) {
      conditions.add("session_id LIKE ? ESCAPE '!'");
      parameters.add("%" + idContains.replaceAll("[!%_]", "!$0") + "%");
    }
    if (after != null) {
      conditions.add("(updated_at < ? OR (updated_at = ? AND session_id < ?))");
      parameters.add(after.updatedAt());
      parameters.add(after.updatedAt());
      parameters.add(after.sessionId());
    }
    parameters.add(limit);
    String sql = ReadSql.sessionsPage(String.join(" AND ", conditions));
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.size(); i++) {
        select.setObject(i + 1, parameters.get(i));
      }
      return sessions(select);
    }
  }

  /** Where a page of the session list ends: the next page starts after this session. */
  public record SessionKey(long updatedAt, String sessionId) {}

  /** The sessions forked from {@code sessionId}, oldest first. */
  public List<StoredSession> forks(Connection connection, String sessionId) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(ReadSql.FORKS)) {
      select.setString(1, sessionId);
      return sessions(select);
    }
  }

  /** The sub-agent sessions of {@code sessionId}, oldest first. */
  public List<StoredSession> subAgents(Connection connection, String sessionId)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(ReadSql.SUB_AGENTS)) {
      select.setString(1, sessionId);
      return sessions(select);
    }
  }

  private static List<StoredSession> sessions(PreparedStatement select) throws SQLException {
    List<StoredSession> result = new ArrayList<>();
    try (ResultSet row = select.executeQuery()) {
      while (row.next()) {
        result.add(Rows.session(row));
      }
    }
    return List.copyOf(result);
  }

  /**
   * The checkpoint history of a session, newest step first.
   *
   * @param limit at most this many entries (the newest); zero or less means all of them
   */
  public List<StoredEntry> history(Connection connection, String sessionId, int limit)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(limit > 0 ? ReadSql.HISTORY_LIMIT : ReadSql.HISTORY)) {
      select.setString(1, sessionId);
      if (limit > 0) {
        select.setInt(2, limit);
      }
      return entries(select);
    }
  }

  /**
   * The step records of a session's entries {@code from .. to} (inclusive), by entry step; an entry
   * without any (or written before step records) has no key.
   */
  public Map<Integer, List<StepRecord>> steps(
      Connection connection, String sessionId, int from, int to) throws SQLException {
    Map<Integer, List<StepRecord>> steps = new LinkedHashMap<>();
    try (PreparedStatement select = connection.prepareStatement(ReadSql.STEPS)) {
      select.setString(1, sessionId);
      select.setInt(2, from);
      select.setInt(3, to);
      try (ResultSet row = select.executeQuery()) {
        while (row.next()) {
          steps.computeIfAbsent(row.getInt("step"), step -> new ArrayList<>()).add(Rows.step(row));
        }
      }
    }
    return steps;
  }

  /** The runs of a session, first run first. */
  public List<RunRecord> runs(Connection connection, String sessionId) throws SQLException {
    List<RunRecord> runs = new ArrayList<>();
    try (PreparedStatement select = connection.prepareStatement(ReadSql.RUNS)) {
      select.setString(1, sessionId);
      try (ResultSet row = select.executeQuery()) {
        while (row.next()) {
          runs.add(Rows.run(row));
        }
      }
    }
    return List.copyOf(runs);
  }

  /**
   * The newest history entry of a session's current line: the entries a reset superseded are no
   * longer where the session stands, and their messages are kept aside.
   */
  public Optional<StoredEntry> newestCurrentEntry(Connection connection, String sessionId)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(ReadSql.NEWEST_CURRENT_ENTRY)) {
      select.setString(1, sessionId);
      return entries(select).stream().findFirst();
    }
  }

  /** The history entry of a session at {@code step}, if the history keeps it. */
  public Optional<StoredEntry> entry(Connection connection, String sessionId, int step)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(ReadSql.ENTRY)) {
      select.setString(1, sessionId);
      select.setInt(2, step);
      return entries(select).stream().findFirst();
    }
  }

  private static List<StoredEntry> entries(PreparedStatement select) throws SQLException {
    List<StoredEntry> result = new ArrayList<>();
    try (ResultSet row = select.executeQuery()) {
      boolean withHash = Rows.hasColumn(row, "transcript_hash");
      boolean withRun = Rows.hasColumn(row, "run_steps");
      while (row.next()) {
        result.add(Rows.entry(row, withHash, withRun));
      }
    }
    return List.copyOf(result);
  }

  /**
   * Approvals, oldest request first: of one session ({@code null}: of every session), optionally
   * only the pending ones.
   */
  /**
   * How many approvals of every session wait for a decision, and when the oldest was requested
   * (epoch milliseconds; 0 when none waits).
   */
  public PendingApprovals pendingApprovals(Connection connection) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(ReadSql.PENDING_APPROVALS_SUMMARY);
        ResultSet rows = select.executeQuery()) {
      rows.next();
      return new PendingApprovals(rows.getLong(1), rows.getLong(2));
    }
  }

  /** See {@link #pendingApprovals(Connection)}. */
  public record PendingApprovals(long count, long oldestRequestedAt) {}

  public List<StoredApproval> approvals(
      Connection connection, String sessionId, boolean pendingOnly) throws SQLException {
    String sql =
        sessionId == null
            ? pendingOnly ? ReadSql.APPROVALS_PENDING : ReadSql.APPROVALS_ALL
            : pendingOnly ? ReadSql.APPROVALS_PENDING_OF_SESSION : ReadSql.APPROVALS_OF_SESSION;
    List<StoredApproval> found;
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      if (sessionId != null) {
        select.setString(1, sessionId);
      }
      found = approvals(select);
    }
    if (sessionId != null) {
      // And those of the sub-agent sessions below it, whose ids begin with its own.
      List<StoredApproval> all = new ArrayList<>(found);
      try (PreparedStatement select =
          connection.prepareStatement(
              pendingOnly
                  ? ReadSql.APPROVALS_PENDING_OF_SESSIONS_LIKE
                  : ReadSql.APPROVALS_OF_SESSIONS_LIKE)) {
        select.setString(1, likePrefix(sessionId + SUB_AGENT_INFIX));
        all.addAll(approvals(select));
      }
      all.sort(
          Comparator.comparingLong((StoredApproval a) -> a.record().approval().requestedAt())
              .thenComparing(a -> a.record().approval().approvalId()));
      found = all;
    }
    return withParents(connection, found);
  }

  /** What a sub-agent session's id has between its parent's id and its own suffix. */
  private static final String SUB_AGENT_INFIX = ":sub:";

  /**
   * {@code approvals}, each of a sub-agent session naming that session's parent; an approval whose
   * session only looks like one (a client's own id with the infix) names none.
   */
  private List<StoredApproval> withParents(Connection connection, List<StoredApproval> approvals)
      throws SQLException {
    Map<String, Optional<String>> parents = new HashMap<>();
    List<StoredApproval> result = new ArrayList<>(approvals.size());
    for (StoredApproval approval : approvals) {
      String sessionId = approval.sessionId();
      if (!sessionId.contains(SUB_AGENT_INFIX)) {
        result.add(approval);
        continue;
      }
      Optional<String> parent = parents.get(sessionId);
      if (parent == null) {
        parent =
            session(connection, sessionId)
                .filter(StoredSession::isSubAgent)
                .map(StoredSession::parentSessionId);
        parents.put(sessionId, parent);
      }
      result.add(parent.map(approval::withParent).orElse(approval));
    }
    return List.copyOf(result);
  }

  /** A LIKE pattern (escape character {@code !}) matching every string that begins {@code s}. */
  private static String likePrefix(String s) {
    return s.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%";
  }

  /**
   * A page of the approvals of every session, oldest request first: only the pending ones, or all;
   * after {@code after} (null: from the oldest); at most {@code limit}.
   */
  public List<StoredApproval> approvals(
      Connection connection, boolean pendingOnly, ApprovalKey after, int limit)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(ReadSql.approvalsPage(pendingOnly, after != null))) {
      int parameter = 1;
      if (after != null) {
        select.setLong(parameter++, after.requestedAt());
        select.setLong(parameter++, after.requestedAt());
        select.setString(parameter++, after.approvalId());
      }
      select.setInt(parameter, limit);
      return withParents(connection, approvals(select));
    }
  }

  private static List<StoredApproval> approvals(PreparedStatement select) throws SQLException {
    List<StoredApproval> result = new ArrayList<>();
    try (ResultSet row = select.executeQuery()) {
      while (row.next()) {
        result.add(Rows.approval(row));
      }
    }
    return List.copyOf(result);
  }

  /** Where a page of the approvals list ends: the next page starts after this approval. */
  public record ApprovalKey(long requestedAt, String approvalId) {}

  /**
   * Whether {@code error} says a projection table is missing: the database is not (yet) one the
   * store migrated, which a reader reports as such rather than as a failed read.
   */
  public static boolean isMissingTable(SQLException error) {
    if ("42P01".equals(error.getSQLState())) {
      return true;
    }
    String message = error.getMessage();
    return message != null && message.toLowerCase(Locale.ROOT).contains("no such table");
  }
}
