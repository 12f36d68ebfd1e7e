package io.durableagents.store.internal;

import static io.durableagents.store.internal.JdbcStatements.count;
import static io.durableagents.store.internal.JdbcStatements.executeUpdate;
import static io.durableagents.store.internal.JdbcStatements.setNullableString;

import io.durableagents.conversation.Message;
import io.durableagents.conversation.Usage;
import io.durableagents.projection.ProjectionUrl;
import io.durableagents.projection.internal.ProjectionQueries;
import io.durableagents.projection.internal.StoredApproval;
import io.durableagents.projection.internal.StoredEntry;
import io.durableagents.projection.internal.StoredSession;
import io.durableagents.session.internal.ApprovalRecord;
import io.durableagents.store.AgentStore;
import io.durableagents.store.AgentStores;
import io.durableagents.store.PruneResult;
import io.durableagents.store.StoreException;
import io.durableagents.store.StoreOptions;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.durableagents.workflow.internal.wire.TranscriptHash;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

/**
 * The {@link AgentStore} on a JDBC database (SQLite or PostgreSQL) whose schema is already
 * migrated; {@link AgentStores} opens one with the migrations applied.
 *
 * <p>A save whose transaction loses a race for the database (SQLite's single writer, a PostgreSQL
 * deadlock or serialization failure) is retried a few times with a short randomized backoff before
 * it fails.
 *
 * <p>Every write is keyed and guarded so that retries, duplicates and late arrivals converge:
 * messages by (session, seq), history entries by (session, step) and newer {@code saved_at}, the
 * session row by newer (step, {@code updated_at}), approvals by id and never back to pending. A
 * save takes the session's lock first (the SQLite write lock, the PostgreSQL row lock), so
 * concurrent saves of one session apply one after the other.
 */
public final class JdbcAgentStore implements CheckpointStore {
  private final DataSource dataSource;
  private final boolean ownsDataSource;
  private final int historyLimit;

  /** Where each method's transaction begins and ends; on SQLite they commit in groups. */
  private final StoreTransactions transactions;

  /** The reads, shared with the client's reader; on SQLite they decode bodies from its bytes. */
  private final ProjectionQueries queries;

  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * A store with the default {@link StoreOptions}.
   *
   * @param dataSource connections to a database migrated with the store's schema
   * @param ownsDataSource whether {@link #close()} closes the data source (when it is {@link
   *     AutoCloseable}, as a connection pool is)
   */
  public JdbcAgentStore(DataSource dataSource, boolean ownsDataSource) {
    this(dataSource, ownsDataSource, StoreOptions.getDefaultInstance());
  }

  /**
   * @param dataSource connections to a database migrated with the store's schema
   * @param ownsDataSource whether {@link #close()} closes the data source (when it is {@link
   *     AutoCloseable}, as a connection pool is)
   * @param options the history limit
   */
  public JdbcAgentStore(DataSource dataSource, boolean ownsDataSource, StoreOptions options) {
    this(dataSource, ownsDataSource, options, false);
  }

  /**
   * @param sqlite whether the database is SQLite, which has one writer per database: this process
   *     then runs one writing transaction at a time (concurrent writers would wait in SQLite's busy
   *     handler, which sleeps in steps of milliseconds), committing those that queue up together
   *     (see {@link GroupCommit}); and it decodes message bodies from the UTF-8 bytes SQLite keeps,
   *     without building a String of each first
   */
  public JdbcAgentStore(
      DataSource dataSource, boolean ownsDataSource, StoreOptions options, boolean sqlite) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.ownsDataSource = ownsDataSource;
    this.historyLimit = Objects.requireNonNull(options, "options").getHistoryLimit();
    this.transactions =
        new StoreTransactions(dataSource, sqlite ? new GroupCommit(dataSource) : null);
    this.queries =
        sqlite ? ProjectionQueries.of(ProjectionUrl.Kind.SQLITE) : ProjectionQueries.portable();
  }

  @Override
  public int historyLimit() {
    return historyLimit;
  }

  @Override
  public void saveCheckpoint(CheckpointSave save) {
    validate(save);
    Encoded encoded = Encoded.of(save);
    transactions.inTransaction(
        "save checkpoint step " + save.step() + " of session " + save.sessionId(),
        connection -> {
          lockSession(connection, save.sessionId());
          write(connection, encoded);
          return null;
        });
  }

  @Override
  public void saveFork(String sourceSessionId, int copied, CheckpointSave save) {
    requireSessionId(sourceSessionId);
    validate(save);
    if (copied < 0 || copied != save.firstSeq()) {
      throw new IllegalArgumentException(
          "a fork's save must continue the "
              + copied
              + " copied messages, not start at "
              + save.firstSeq());
    }
    Encoded encoded = Encoded.of(save);
    transactions.inTransaction(
        "save fork " + save.sessionId() + " of session " + sourceSessionId,
        connection -> {
          lockSession(connection, save.sessionId());
          Claim claim = claimSession(connection, encoded);
          if (claim == null) {
            return null;
          }
          if (copied > 0) {
            int rows;
            try (PreparedStatement copy = connection.prepareStatement(Sql.COPY_MESSAGES)) {
              copy.setString(1, save.sessionId());
              copy.setInt(2, save.run());
              copy.setInt(3, save.step());
              copy.setString(4, sourceSessionId);
              copy.setInt(5, copied);
              rows = copy.executeUpdate();
            }
            if (rows != copied) {
              throw new StoreException(
                  "cannot fork session "
                      + sourceSessionId
                      + ": the store holds "
                      + rows
                      + " of the "
                      + copied
                      + " messages to copy");
            }
          }
          // The fork's save names its transcript's hash chain: the copied prefix is never hashed
          // here.
          String chain = new Chain(null, 0).extend(connection, encoded);
          writeEntry(connection, encoded, chain);
          writeSessionRow(connection, encoded, encoded.stamp(), claim.lastStep(), chain);
          return null;
        });
  }

  @Override
  public void saveCheckpoints(List<CheckpointSave> saves) {
    if (saves.size() == 1) {
      saveCheckpoint(saves.get(0));
      return;
    }
    List<Encoded> encoded = new ArrayList<>();
    Set<String> sessions = new TreeSet<>();
    Set<String> executions = new HashSet<>();
    for (CheckpointSave save : saves) {
      validate(save);
      encoded.add(Encoded.of(save));
      sessions.add(save.sessionId());
      executions.add(save.executionId());
    }
    if (encoded.isEmpty()) {
      return;
    }
    CheckpointSave last = saves.get(saves.size() - 1);
    // The usual case, consecutive entries of one execution: one ownership check and one session
    // row (the last save's, the newest) instead of one per save.
    boolean consecutive = sessions.size() == 1 && executions.size() == 1;
    transactions.inTransaction(
        saves.size()
            + " checkpoint saves up to step "
            + last.step()
            + " of session "
            + last.sessionId(),
        connection -> {
          for (String sessionId : sessions) {
            lockSession(connection, sessionId);
          }
          if (!consecutive) {
            for (Encoded save : encoded) {
              write(connection, save);
            }
          } else {
            Claim claim = claimSession(connection, encoded.get(0));
            if (claim != null) {
              String chain = null;
              for (Encoded save : encoded) {
                chain = claim.chain().extend(connection, save);
                writeEntry(connection, save, chain);
              }
              writeSessionRow(
                  connection,
                  encoded.get(encoded.size() - 1),
                  encoded.get(0).stamp(),
                  claim.lastStep(),
                  chain);
            }
          }
          return null;
        });
  }

  @Override
  public void recordLineage(
      String sessionId,
      String executionId,
      String parentSessionId,
      int parentStep,
      String patchSummary) {
    requireSessionId(sessionId);
    transactions.inTransaction(
        "record the lineage of session " + sessionId,
        connection -> {
          try (PreparedStatement update = connection.prepareStatement(Sql.SET_LINEAGE)) {
            update.setString(1, parentSessionId);
            update.setInt(2, parentStep);
            setNullableString(update, 3, patchSummary);
            update.setString(4, sessionId);
            update.setString(5, executionId);
            update.executeUpdate();
          }
          return null;
        });
  }

  @Override
  public boolean delete(String sessionId, boolean keepHistory) {
    requireSessionId(sessionId);
    return transactions.inTransaction(
        "delete session " + sessionId,
        connection -> {
          lockSession(connection, sessionId);
          return SessionRemoval.delete(connection, sessionId, keepHistory);
        });
  }

  @Override
  public PruneResult prune(Instant cutoff) {
    Objects.requireNonNull(cutoff, "cutoff");
    long before = cutoff.toEpochMilli();
    return transactions.inTransaction(
        "prune the store before " + cutoff, connection -> SessionRemoval.prune(connection, before));
  }

  @Override
  public void rebuild(String sessionId, List<CheckpointSave> saves) {
    requireSessionId(sessionId);
    Objects.requireNonNull(saves, "saves");
    List<Encoded> encoded = new ArrayList<>(saves.size());
    for (CheckpointSave save : saves) {
      validate(save);
      if (!sessionId.equals(save.sessionId())) {
        throw new StoreException(
            "cannot rebuild session " + sessionId + " from a save of session " + save.sessionId());
      }
      encoded.add(Encoded.of(save));
    }
    transactions.inTransaction(
        "rebuild session " + sessionId,
        connection -> {
          lockSession(connection, sessionId);
          SessionRemoval.clearForRebuild(
              connection, sessionId, saves.isEmpty() ? null : saves.get(0));
          for (Encoded save : encoded) {
            write(connection, save);
          }
          return null;
        });
  }

  @Override
  public List<Message> readMessages(String sessionId, int count) {
    return readMessages(sessionId, 0, count);
  }

  @Override
  public List<Message> readMessages(String sessionId, int from, int to) {
    requireSessionId(sessionId);
    if (from < 0 || to < from) {
      throw new IllegalArgumentException("not a range of messages: " + from + " to " + to);
    }
    if (to == from) {
      return List.of();
    }
    return transactions.onConnection(
        "read the messages of session " + sessionId,
        connection -> {
          List<Message> result = queries.contiguousMessages(connection, sessionId, from, to);
          if (from + result.size() != to) {
            throw missing(sessionId, from, result.size(), to);
          }
          return result;
        });
  }

  @Override
  public Optional<StoredSession> session(String sessionId) {
    requireSessionId(sessionId);
    return transactions.onConnection(
        "read session " + sessionId, connection -> queries.session(connection, sessionId));
  }

  @Override
  public List<StoredEntry> history(String sessionId, int limit) {
    requireSessionId(sessionId);
    return transactions.onConnection(
        "read the checkpoint history of session " + sessionId,
        connection -> queries.history(connection, sessionId, limit));
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

  /** A save with its messages serialized and its defaults filled in, ready to write. */
  private record Encoded(CheckpointSave save, List<String> bodies, Usage usage, long stamp) {
    static Encoded of(CheckpointSave save) {
      List<String> bodies = new ArrayList<>(save.newMessages().size());
      for (Message message : save.newMessages()) {
        bodies.add(MessageCodec.encode(message));
      }
      long stamp = save.savedAt() > 0 ? save.savedAt() : System.currentTimeMillis();
      return new Encoded(save, bodies, save.usage() == null ? Usage.ZERO : save.usage(), stamp);
    }
  }

  /**
   * The first statement of every writing transaction on a session: takes the write lock (SQLite) or
   * the session's row lock (PostgreSQL) before anything is read.
   */
  private static void lockSession(Connection connection, String sessionId) throws SQLException {
    executeUpdate(connection, Sql.LOCK_SESSION, sessionId);
  }

  /** Applies one save; the caller holds the session's lock. */
  private void write(Connection connection, Encoded encoded) throws SQLException {
    Claim claim = claimSession(connection, encoded);
    if (claim != null) {
      String chain = claim.chain().extend(connection, encoded);
      writeEntry(connection, encoded, chain);
      writeSessionRow(connection, encoded, encoded.stamp(), claim.lastStep(), chain);
    }
  }

  /** The stored session a save goes on from: its newest step (-1: none) and transcript chain. */
  private record Claim(int lastStep, Chain chain) {}

  /**
   * The hash chain ({@link TranscriptHash}) of a session's stored transcript, as the saves of one
   * transaction extend it: each history entry gets the chain of its transcript, so that a fork from
   * it need not hash the transcript again, and the workflow need not send it with every save.
   */
  private static final class Chain {
    /**
     * Null when unknown: rows written before the column existed, or after a save that left a gap.
     */
    private String hash;

    private int count;

    Chain(String hash, int count) {
      this.hash = hash;
      this.count = count;
    }

    /** The chain of {@code encoded}'s transcript (null when unknown); the chain moves on to it. */
    String extend(Connection connection, Encoded encoded) throws SQLException {
      CheckpointSave save = encoded.save();
      String next = save.transcriptHash();
      if (next == null) {
        next = at(connection, save.sessionId(), save.firstSeq());
        for (int i = 0; next != null && i < encoded.bodies().size(); i++) {
          next =
              TranscriptHash.linkJson(
                  next, encoded.bodies().get(i).getBytes(StandardCharsets.UTF_8));
        }
      }
      hash = next;
      count = save.messageCount();
      return next;
    }

    /**
     * The chain of the first {@code messages} messages: this one when it covers exactly them (the
     * usual case), else that of a kept entry of that length (a retried or rebuilt save).
     */
    private String at(Connection connection, String sessionId, int messages) throws SQLException {
      if (messages == 0) {
        return TranscriptHash.EMPTY;
      }
      if (hash != null && count == messages) {
        return hash;
      }
      try (PreparedStatement select = connection.prepareStatement(Sql.SELECT_CHAIN_AT)) {
        select.setString(1, sessionId);
        select.setInt(2, messages);
        try (ResultSet row = select.executeQuery()) {
          return row.next() ? row.getString(1) : null;
        }
      }
    }
  }

  /**
   * Checks the stored session's execution id against the save's: null when the save is a late one
   * of an older workflow that used the session id (nothing to write); when the id was reused by a
   * newer workflow, the old rows are deleted first. Otherwise answers where the stored session
   * stands (a new session has step -1 and an empty transcript).
   */
  private static Claim claimSession(Connection connection, Encoded encoded) throws SQLException {
    CheckpointSave save = encoded.save();
    String sessionId = save.sessionId();
    long stamp = encoded.stamp();

    String storedExecution = null;
    long storedCreatedAt = 0;
    int storedLastStep = -1;
    Chain chain = new Chain(TranscriptHash.EMPTY, 0);
    try (PreparedStatement select = connection.prepareStatement(Sql.SELECT_EXECUTION_ID)) {
      select.setString(1, sessionId);
      try (ResultSet row = select.executeQuery()) {
        if (row.next()) {
          storedExecution = row.getString(1);
          storedCreatedAt = row.getLong(2);
          storedLastStep = row.getInt(3);
          chain = new Chain(row.getString(5), row.getInt(4));
        }
      }
    }
    if (storedExecution != null && !storedExecution.equals(save.executionId())) {
      if (stamp < storedCreatedAt) {
        // A late save of the workflow that used this session id before the stored one: the
        // stored session is newer, so this save has nothing to add.
        return null;
      }
      // The session id was reused by a new workflow: its rows replace the old ones.
      SessionRemoval.deleteForReuse(connection, sessionId);
      storedLastStep = -1;
      chain = new Chain(TranscriptHash.EMPTY, 0);
    }
    return new Claim(storedLastStep, chain);
  }

  /**
   * The save's approvals, messages and history entry, whose transcript has hash chain {@code
   * chain}.
   */
  private static void writeEntry(Connection connection, Encoded encoded, String chain)
      throws SQLException {
    CheckpointSave save = encoded.save();
    String sessionId = save.sessionId();
    Usage usage = encoded.usage();
    long stamp = encoded.stamp();

    for (ApprovalRecord approval : save.approvals()) {
      ApprovalRows.upsert(connection, sessionId, approval);
    }

    List<Message> messages = save.newMessages();
    List<String> bodies = encoded.bodies();
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
      upsert.setString(4, save.status().value());
      setNullableString(upsert, 5, save.finishReason());
      upsert.setInt(6, save.messageCount());
      upsert.setLong(7, usage.inputTokens());
      upsert.setLong(8, usage.outputTokens());
      setNullableString(upsert, 9, save.fingerprint());
      upsert.setLong(10, stamp);
      setNullableString(
          upsert, 11, save.businessState() == null ? null : save.businessState().toString());
      setNullableString(upsert, 12, chain);
      CheckpointSave.RunInfo run = save.runInfo();
      if (run == null) {
        upsert.setNull(13, Types.INTEGER);
        upsert.setNull(14, Types.BIGINT);
        upsert.setNull(15, Types.BIGINT);
      } else {
        upsert.setInt(13, run.steps());
        upsert.setLong(14, run.usage().inputTokens());
        upsert.setLong(15, run.usage().outputTokens());
      }
      setNullableString(upsert, 16, runConfig(save));
      setNullableString(upsert, 17, run == null ? null : run.drift());
      upsert.executeUpdate();
    }
  }

  private static String runConfig(CheckpointSave save) {
    return save.runInfo() == null || save.runInfo().config() == null
        ? null
        : save.runInfo().config().toString();
  }

  /**
   * The session row as of the save (created at {@code createdAt} if it is new), and the history
   * trimmed to the limit. Steps are distinct non-negative numbers, so a session whose highest step
   * is below the limit cannot hold too many entries: the trim is skipped.
   */
  private void writeSessionRow(
      Connection connection, Encoded encoded, long createdAt, int storedLastStep, String chain)
      throws SQLException {
    CheckpointSave save = encoded.save();
    String sessionId = save.sessionId();
    Usage usage = encoded.usage();
    long stamp = encoded.stamp();
    try (PreparedStatement upsert = connection.prepareStatement(Sql.UPSERT_SESSION)) {
      upsert.setString(1, sessionId);
      upsert.setString(2, save.executionId());
      upsert.setString(3, save.agent());
      upsert.setString(4, save.status().value());
      upsert.setInt(5, save.run());
      upsert.setInt(6, save.step());
      upsert.setInt(7, save.messageCount());
      upsert.setLong(8, usage.inputTokens());
      upsert.setLong(9, usage.outputTokens());
      setNullableString(upsert, 10, save.fingerprint());
      upsert.setLong(11, createdAt);
      upsert.setLong(12, stamp);
      setNullableString(upsert, 13, chain);
      setNullableString(upsert, 14, runConfig(save));
      setNullableString(upsert, 15, save.runInfo() == null ? null : save.runInfo().drift());
      upsert.executeUpdate();
    }

    if (Math.max(storedLastStep, save.step()) < historyLimit) {
      return;
    }
    try (PreparedStatement trim = connection.prepareStatement(Sql.TRIM_HISTORY)) {
      trim.setString(1, sessionId);
      trim.setString(2, sessionId);
      trim.setInt(3, historyLimit);
      trim.executeUpdate();
    }
  }

  @Override
  public void saveDefinition(String fingerprint, String agent, String definition) {
    transactions.inTransaction(
        "record the definition " + fingerprint + " of agent " + agent,
        connection -> {
          AgentDefinitions.insert(connection, fingerprint, agent, definition);
          return null;
        });
  }

  @Override
  public Optional<String> definition(String fingerprint) {
    return transactions.onConnection(
        "read the definition " + fingerprint,
        connection -> AgentDefinitions.find(connection, fingerprint));
  }

  @Override
  public void markApprovalNotified(String sessionId, String approvalId, long notifiedAt) {
    requireSessionId(sessionId);
    transactions.inTransaction(
        "record the notification of approval " + approvalId,
        connection -> {
          ApprovalRows.markNotified(connection, sessionId, approvalId, notifiedAt);
          return null;
        });
  }

  @Override
  public List<ApprovalRecord> approvals(String sessionId, boolean pendingOnly) {
    return transactions.onConnection(
        "list approvals",
        connection ->
            queries.approvals(connection, sessionId, pendingOnly).stream()
                .map(StoredApproval::record)
                .toList());
  }

  private static StoreException missing(String sessionId, int from, int found, int to) {
    return new StoreException(
        "the store is missing transcript data of session "
            + sessionId
            + ": asked for messages "
            + from
            + " to "
            + (to - 1)
            + " but found only "
            + found
            + " contiguous from seq "
            + from);
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
}
