package io.durableagents.store;

import io.durableagents.store.internal.ApprovalRows;
import io.durableagents.store.internal.MessageCodec;
import io.durableagents.store.internal.Sql;
import io.durableagents.store.internal.TransientErrors;
import io.durableagents.workflow.Approval;
import io.durableagents.workflow.Message;
import io.durableagents.workflow.Usage;
import io.durableagents.workflow.activity.ApprovalRecord;
import io.durableagents.workflow.activity.CheckpointSave;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

/**
 * The {@link AgentStore} on a JDBC database (SQLite or PostgreSQL) whose schema is already
 * migrated; {@link AgentStores} opens one with the migrations applied.
 *
 * <p>A save whose transaction loses a race for the database (SQLite's single writer, a PostgreSQL
 * deadlock or serialization failure) is retried a few times with a short randomized backoff before
 * it fails.
 */
public final class JdbcAgentStore implements AgentStore {
  private static final int MAX_ATTEMPTS = 8;
  private static final long BACKOFF_MILLIS = 25;

  private final DataSource dataSource;
  private final boolean ownsDataSource;
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * @param dataSource connections to a database migrated with the store's schema
   * @param ownsDataSource whether {@link #close()} closes the data source (when it is {@link
   *     AutoCloseable}, as a connection pool is)
   */
  public JdbcAgentStore(DataSource dataSource, boolean ownsDataSource) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.ownsDataSource = ownsDataSource;
  }

  @Override
  public void saveCheckpoint(CheckpointSave save) {
    validate(save);
    List<Message> messages = save.newMessages();
    List<String> bodies = new ArrayList<>(messages.size());
    for (Message message : messages) {
      bodies.add(MessageCodec.encode(message));
    }
    long stamp = save.savedAt() > 0 ? save.savedAt() : System.currentTimeMillis();
    Usage usage = save.usage() == null ? Usage.ZERO : save.usage();
    run(
        "save checkpoint step " + save.step() + " of session " + save.sessionId(),
        true,
        connection -> {
          write(connection, save, bodies, usage, stamp);
          return null;
        });
  }

  @Override
  public List<Message> readMessages(String sessionId, int count) {
    requireSessionId(sessionId);
    if (count < 0) {
      throw new IllegalArgumentException("count must not be negative, was " + count);
    }
    if (count == 0) {
      return List.of();
    }
    return run(
        "read the messages of session " + sessionId,
        false,
        connection -> {
          List<Message> result = new ArrayList<>(count);
          try (PreparedStatement select = connection.prepareStatement(Sql.SELECT_MESSAGES)) {
            select.setString(1, sessionId);
            select.setInt(2, count);
            try (ResultSet rows = select.executeQuery()) {
              while (rows.next()) {
                int seq = rows.getInt(1);
                if (seq != result.size()) {
                  throw missing(sessionId, result.size(), count);
                }
                result.add(MessageCodec.decode(sessionId, seq, rows.getString(2)));
              }
            }
          }
          if (result.size() != count) {
            throw missing(sessionId, result.size(), count);
          }
          return List.copyOf(result);
        });
  }

  @Override
  public Optional<SessionRecord> session(String sessionId) {
    requireSessionId(sessionId);
    return run(
        "read session " + sessionId,
        false,
        connection -> {
          try (PreparedStatement select = connection.prepareStatement(Sql.SELECT_SESSION)) {
            select.setString(1, sessionId);
            try (ResultSet row = select.executeQuery()) {
              if (!row.next()) {
                return Optional.empty();
              }
              return Optional.of(
                  new SessionRecord(
                      row.getString("session_id"),
                      row.getString("execution_id"),
                      row.getString("agent"),
                      row.getString("status"),
                      row.getInt("current_run"),
                      row.getInt("last_step"),
                      row.getInt("message_count"),
                      new Usage(row.getLong("input_tokens"), row.getLong("output_tokens")),
                      row.getString("fingerprint"),
                      row.getLong("created_at"),
                      row.getLong("updated_at")));
            }
          }
        });
  }

  @Override
  public List<CheckpointEntry> history(String sessionId, int limit) {
    requireSessionId(sessionId);
    return run(
        "read the checkpoint history of session " + sessionId,
        false,
        connection -> {
          String sql = limit > 0 ? Sql.SELECT_HISTORY_LIMIT : Sql.SELECT_HISTORY_ALL;
          List<CheckpointEntry> result = new ArrayList<>();
          try (PreparedStatement select = connection.prepareStatement(sql)) {
            select.setString(1, sessionId);
            if (limit > 0) {
              select.setInt(2, limit);
            }
            try (ResultSet row = select.executeQuery()) {
              while (row.next()) {
                result.add(
                    new CheckpointEntry(
                        row.getInt("step"),
                        row.getInt("run"),
                        row.getLong("saved_at"),
                        row.getString("status"),
                        row.getString("finish_reason"),
                        row.getInt("message_count"),
                        new Usage(row.getLong("input_tokens"), row.getLong("output_tokens")),
                        row.getString("fingerprint")));
              }
            }
          }
          return List.copyOf(result);
        });
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true) || !ownsDataSource) {
      return;
    }
    if (dataSource instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        throw new StoreException("cannot close the store's data source", e);
      }
    }
  }

  private static void write(
      Connection connection, CheckpointSave save, List<String> bodies, Usage usage, long stamp)
      throws SQLException {
    String sessionId = save.sessionId();
    // Take the write lock (SQLite) / the row lock (PostgreSQL) before reading anything.
    executeUpdate(connection, Sql.LOCK_SESSION, sessionId);

    String storedExecution = null;
    try (PreparedStatement select = connection.prepareStatement(Sql.SELECT_EXECUTION_ID)) {
      select.setString(1, sessionId);
      try (ResultSet row = select.executeQuery()) {
        if (row.next()) {
          storedExecution = row.getString(1);
        }
      }
    }
    if (storedExecution != null && !storedExecution.equals(save.executionId())) {
      // The session id was reused by a new workflow: its rows replace the old ones.
      executeUpdate(connection, Sql.DELETE_MESSAGES, sessionId);
      executeUpdate(connection, Sql.DELETE_CHECKPOINTS, sessionId);
      executeUpdate(connection, Sql.DELETE_APPROVALS, sessionId);
      executeUpdate(connection, Sql.DELETE_SESSION, sessionId);
    }

    for (ApprovalRecord approval : save.approvals()) {
      writeApproval(connection, sessionId, approval);
    }

    List<Message> messages = save.newMessages();
    if (!messages.isEmpty()) {
      try (PreparedStatement upsert = connection.prepareStatement(Sql.UPSERT_MESSAGE)) {
        for (int i = 0; i < messages.size(); i++) {
          upsert.setString(1, sessionId);
          upsert.setInt(2, save.firstSeq() + i);
          upsert.setInt(3, save.run());
          upsert.setInt(4, save.step());
          upsert.setString(5, messages.get(i).role());
          upsert.setString(6, bodies.get(i));
          upsert.addBatch();
        }
        upsert.executeBatch();
      }
    }

    try (PreparedStatement upsert = connection.prepareStatement(Sql.UPSERT_CHECKPOINT)) {
      upsert.setString(1, sessionId);
      upsert.setInt(2, save.step());
      upsert.setInt(3, save.run());
      upsert.setString(4, save.status());
      setNullableString(upsert, 5, save.finishReason());
      upsert.setInt(6, save.messageCount());
      upsert.setLong(7, usage.inputTokens());
      upsert.setLong(8, usage.outputTokens());
      setNullableString(upsert, 9, save.fingerprint());
      upsert.setLong(10, stamp);
      upsert.executeUpdate();
    }

    try (PreparedStatement upsert = connection.prepareStatement(Sql.UPSERT_SESSION)) {
      upsert.setString(1, sessionId);
      upsert.setString(2, save.executionId());
      upsert.setString(3, save.agent());
      upsert.setString(4, save.status());
      upsert.setInt(5, save.run());
      upsert.setInt(6, save.step());
      upsert.setInt(7, save.messageCount());
      upsert.setLong(8, usage.inputTokens());
      upsert.setLong(9, usage.outputTokens());
      setNullableString(upsert, 10, save.fingerprint());
      upsert.setLong(11, stamp);
      upsert.setLong(12, stamp);
      upsert.executeUpdate();
    }
  }

  private static void writeApproval(Connection connection, String sessionId, ApprovalRecord record)
      throws SQLException {
    Approval approval = record.approval();
    try (PreparedStatement upsert = connection.prepareStatement(Sql.UPSERT_APPROVAL)) {
      upsert.setString(1, approval.approvalId());
      upsert.setString(2, sessionId);
      upsert.setInt(3, record.run());
      upsert.setInt(4, record.step());
      upsert.setString(5, approval.toolCallId());
      upsert.setString(6, approval.toolName());
      setNullableString(upsert, 7, approval.input() == null ? null : approval.input().toString());
      upsert.setString(8, record.status());
      upsert.setLong(9, approval.requestedAt());
      upsert.setLong(10, approval.expiresAt());
      if (record.decidedAt() > 0) {
        upsert.setLong(11, record.decidedAt());
      } else {
        upsert.setNull(11, Types.BIGINT);
      }
      setNullableString(upsert, 12, record.decidedBy());
      setNullableString(upsert, 13, record.note());
      upsert.executeUpdate();
    }
  }

  @Override
  public void markApprovalNotified(String sessionId, String approvalId, long notifiedAt) {
    requireSessionId(sessionId);
    run(
        "record the notification of approval " + approvalId,
        true,
        connection -> {
          try (PreparedStatement update = connection.prepareStatement(Sql.MARK_NOTIFIED)) {
            update.setLong(1, notifiedAt);
            update.setString(2, sessionId);
            update.setString(3, approvalId);
            update.executeUpdate();
          }
          return null;
        });
  }

  @Override
  public List<ApprovalRecord> approvals(String sessionId, boolean pendingOnly) {
    return run(
        "list approvals",
        false,
        connection -> {
          String sql =
              sessionId != null
                  ? Sql.SELECT_APPROVALS_OF_SESSION
                  : pendingOnly ? Sql.SELECT_APPROVALS_PENDING : Sql.SELECT_APPROVALS_ALL;
          List<ApprovalRecord> result = new ArrayList<>();
          try (PreparedStatement select = connection.prepareStatement(sql)) {
            if (sessionId != null) {
              select.setString(1, sessionId);
            }
            try (ResultSet row = select.executeQuery()) {
              while (row.next()) {
                ApprovalRecord record = ApprovalRows.read(row);
                if (!pendingOnly || ApprovalRecord.PENDING.equals(record.status())) {
                  result.add(record);
                }
              }
            }
          }
          return List.copyOf(result);
        });
  }

  private static void executeUpdate(Connection connection, String sql, String sessionId)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, sessionId);
      statement.executeUpdate();
    }
  }

  private static void setNullableString(PreparedStatement statement, int index, String value)
      throws SQLException {
    if (value == null) {
      statement.setNull(index, Types.VARCHAR);
    } else {
      statement.setString(index, value);
    }
  }

  /** Runs {@code work} on a connection, in a transaction if asked, retrying transient failures. */
  private <T> T run(String what, boolean transactional, SqlWork<T> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        return attempt(transactional, work);
      } catch (SQLException e) {
        if (attempt < MAX_ATTEMPTS && TransientErrors.isTransient(e)) {
          backoff(what, attempt, e);
          continue;
        }
        String tries = attempt > 1 ? " (after " + attempt + " attempts)" : "";
        throw new StoreException("cannot " + what + tries + ": " + e.getMessage(), e);
      }
    }
  }

  private <T> T attempt(boolean transactional, SqlWork<T> work) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      if (!transactional) {
        return work.apply(connection);
      }
      boolean autoCommit = connection.getAutoCommit();
      connection.setAutoCommit(false);
      try {
        T result = work.apply(connection);
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException | Error e) {
        try {
          connection.rollback();
        } catch (SQLException rollbackError) {
          e.addSuppressed(rollbackError);
        }
        throw e;
      } finally {
        restoreAutoCommit(connection, autoCommit);
      }
    }
  }

  private static void restoreAutoCommit(Connection connection, boolean autoCommit) {
    try {
      connection.setAutoCommit(autoCommit);
    } catch (SQLException ignored) {
      // The connection is broken; the pool (or the next use) finds out. The outcome of the
      // transaction is already decided and reported.
    }
  }

  private static void backoff(String what, int attempt, SQLException cause) {
    long bound = BACKOFF_MILLIS << Math.min(attempt - 1, 5);
    try {
      Thread.sleep(bound / 2 + ThreadLocalRandom.current().nextLong(bound / 2 + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      StoreException interrupted =
          new StoreException("interrupted while retrying to " + what, cause);
      interrupted.addSuppressed(e);
      throw interrupted;
    }
  }

  private static StoreException missing(String sessionId, int found, int count) {
    return new StoreException(
        "the store is missing transcript data of session "
            + sessionId
            + ": asked for the first "
            + count
            + " messages but found only "
            + found
            + " contiguous from seq 0");
  }

  private static void requireSessionId(String sessionId) {
    if (sessionId == null || sessionId.isBlank()) {
      throw new IllegalArgumentException("sessionId must not be blank");
    }
  }

  private static void validate(CheckpointSave save) {
    Objects.requireNonNull(save, "save");
    requireSessionId(save.sessionId());
    if (save.executionId() == null || save.executionId().isBlank()) {
      throw new IllegalArgumentException(
          "executionId of the save of session " + save.sessionId() + " must not be blank");
    }
    if (save.agent() == null) {
      throw new IllegalArgumentException(
          "agent of the save of session " + save.sessionId() + " must not be null");
    }
    if (save.status() == null) {
      throw new IllegalArgumentException(
          "status of the save of session " + save.sessionId() + " must not be null");
    }
    if (save.step() < 0 || save.run() < 0 || save.firstSeq() < 0) {
      throw new IllegalArgumentException(
          "step, run and firstSeq of the save of session "
              + save.sessionId()
              + " must not be negative");
    }
    for (Message message : save.newMessages()) {
      if (message == null || message.role() == null) {
        throw new IllegalArgumentException(
            "every new message of the save of session " + save.sessionId() + " needs a role");
      }
    }
  }

  @FunctionalInterface
  private interface SqlWork<T> {
    T apply(Connection connection) throws SQLException;
  }
}
