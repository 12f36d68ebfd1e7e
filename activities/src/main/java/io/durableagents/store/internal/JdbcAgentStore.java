package io.durableagents.store.internal;

import static io.durableagents.store.internal.JdbcStatements.executeUpdate;

import io.durableagents.conversation.Message;
import io.durableagents.projection.ProjectionUrl;
import io.durableagents.projection.internal.ProjectionQueries;
import io.durableagents.projection.internal.StoredApproval;
import io.durableagents.projection.internal.StoredEntry;
import io.durableagents.projection.internal.StoredSession;
import io.durableagents.session.RunRecord;
import io.durableagents.session.RunStatus;
import io.durableagents.session.StepRecord;
import io.durableagents.session.internal.ApprovalRecord;
import io.durableagents.store.AgentStore;
import io.durableagents.store.AgentStores;
import io.durableagents.store.PruneResult;
import io.durableagents.store.StoreException;
import io.durableagents.store.StoreOptions;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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
 *
 * <p>This class decides what each transaction holds; the statements are those of the classes of its
 * tables ({@link SessionRows}, {@link TranscriptMessages}, {@link HistoryEntries}, {@link
 * ApprovalRows}, {@link AgentDefinitions}, {@link SessionRemoval}), a save's across them in {@link
 * CheckpointWriter}, and the reads those of the read model ({@link ProjectionQueries}).
 */
public final class JdbcAgentStore implements CheckpointStore {
  private final DataSource dataSource;
  private final boolean ownsDataSource;
  private final int historyLimit;

  /** Applies saves across the session's tables, inside the transactions this class opens. */
  private final CheckpointWriter writer;

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
    this.writer = new CheckpointWriter(historyLimit);
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
    EncodedSave.validate(save);
    EncodedSave encoded = EncodedSave.of(save);
    transactions.inTransaction(
        "save checkpoint step " + save.step() + " of session " + save.sessionId(),
        connection -> {
          SessionRows.lock(connection, save.sessionId());
          writer.write(connection, encoded);
          return null;
        });
  }

  @Override
  public void saveFork(String sourceSessionId, int copied, CheckpointSave save) {
    EncodedSave.requireSessionId(sourceSessionId);
    EncodedSave.validate(save);
    if (copied < 0 || copied != save.firstSeq()) {
      throw new IllegalArgumentException(
          "a fork's save must continue the "
              + copied
              + " copied messages, not start at "
              + save.firstSeq());
    }
    EncodedSave encoded = EncodedSave.of(save);
    transactions.inTransaction(
        "save fork " + save.sessionId() + " of session " + sourceSessionId,
        connection -> {
          SessionRows.lock(connection, save.sessionId());
          writer.writeFork(connection, sourceSessionId, copied, encoded);
          return null;
        });
  }

  @Override
  public void saveCheckpoints(List<CheckpointSave> saves) {
    if (saves.size() == 1) {
      saveCheckpoint(saves.get(0));
      return;
    }
    List<EncodedSave> encoded = new ArrayList<>();
    Set<String> sessions = new TreeSet<>();
    Set<String> executions = new HashSet<>();
    for (CheckpointSave save : saves) {
      EncodedSave.validate(save);
      encoded.add(EncodedSave.of(save));
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
            SessionRows.lock(connection, sessionId);
          }
          if (consecutive) {
            writer.writeConsecutive(connection, encoded);
          } else {
            for (EncodedSave save : encoded) {
              writer.write(connection, save);
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
    EncodedSave.requireSessionId(sessionId);
    transactions.inTransaction(
        "record the lineage of session " + sessionId,
        connection -> {
          SessionRows.setLineage(
              connection, sessionId, executionId, parentSessionId, parentStep, patchSummary);
          return null;
        });
  }

  @Override
  public boolean delete(String sessionId, boolean keepHistory) {
    EncodedSave.requireSessionId(sessionId);
    return transactions.inTransaction(
        "delete session " + sessionId,
        connection -> {
          SessionRows.lock(connection, sessionId);
          return SessionRemoval.delete(
              connection,
              sessionId,
              keepHistory,
              "delete with kept history at " + Instant.now().truncatedTo(ChronoUnit.SECONDS));
        });
  }

  @Override
  public Optional<StoredEntry> retireKeptHistory(String sessionId, String retiredBy) {
    EncodedSave.requireSessionId(sessionId);
    Objects.requireNonNull(retiredBy, "retiredBy");
    return transactions.inTransaction(
        "retire the kept history of session " + sessionId,
        connection -> {
          SessionRows.lock(connection, sessionId);
          if (queries.session(connection, sessionId).isPresent()) {
            return Optional.empty();
          }
          List<StoredEntry> newest = queries.history(connection, sessionId, 1);
          if (newest.isEmpty()) {
            return Optional.empty();
          }
          SessionRemoval.retire(connection, sessionId, retiredBy);
          return Optional.of(newest.get(0));
        });
  }

  @Override
  public Optional<StoredSession> adopt(String sessionId, String executionId) {
    EncodedSave.requireSessionId(sessionId);
    Objects.requireNonNull(executionId, "executionId");
    return transactions.inTransaction(
        "restore session " + sessionId,
        connection -> {
          SessionRows.lock(connection, sessionId);
          Optional<StoredSession> row = queries.session(connection, sessionId);
          if (row.isPresent()) {
            executeUpdate(connection, Sql.ADOPT_SESSION, executionId, sessionId);
          }
          return row;
        });
  }

  @Override
  public Optional<ResetPoint> reset(
      String sessionId, String executionId, int step, String resetId) {
    EncodedSave.requireSessionId(sessionId);
    Objects.requireNonNull(executionId, "executionId");
    Objects.requireNonNull(resetId, "resetId");
    return transactions.inTransaction(
        "reset session " + sessionId + " to step " + step,
        connection -> {
          SessionRows.lock(connection, sessionId);
          Optional<StoredSession> row = queries.session(connection, sessionId);
          Optional<StoredEntry> entry = queries.entry(connection, sessionId, step);
          if (row.isEmpty()
              || entry.isEmpty()
              || (entry.get().supersededBy() != null
                  && !entry.get().supersededBy().equals(resetId))) {
            return Optional.empty();
          }
          executeUpdate(
              connection, Sql.COPY_SUPERSEDED_MESSAGES, resetId, sessionId, sessionId, step);
          executeUpdate(connection, Sql.SUPERSEDE_ENTRIES, resetId, sessionId, step);
          StoredEntry at = entry.get();
          // The status and totals the session's status shows from now on: a run the entry was
          // in the middle of does not go on, so its session stands finished.
          RunStatus status = RunStatus.settled(at.status()) ? at.status() : RunStatus.FINISHED;
          executeUpdate(
              connection,
              Sql.RESET_SESSION,
              executionId,
              status.value(),
              at.messageCount(),
              at.transcriptHash(),
              at.usage().inputTokens(),
              at.usage().outputTokens(),
              step,
              sessionId);
          executeUpdate(connection, Sql.DELETE_MESSAGES_FROM, sessionId, at.messageCount());
          return Optional.of(new ResetPoint(at, row.get()));
        });
  }

  @Override
  public void markClosed(String sessionId, String executionId, long closedAt) {
    EncodedSave.requireSessionId(sessionId);
    transactions.inTransaction(
        "mark session " + sessionId + " closed",
        connection -> {
          executeUpdate(connection, Sql.MARK_CLOSED, closedAt, sessionId, executionId);
          return null;
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
    EncodedSave.requireSessionId(sessionId);
    Objects.requireNonNull(saves, "saves");
    List<EncodedSave> encoded = new ArrayList<>(saves.size());
    for (CheckpointSave save : saves) {
      EncodedSave.validate(save);
      if (!sessionId.equals(save.sessionId())) {
        throw new StoreException(
            "cannot rebuild session " + sessionId + " from a save of session " + save.sessionId());
      }
      encoded.add(EncodedSave.of(save));
    }
    transactions.inTransaction(
        "rebuild session " + sessionId,
        connection -> {
          SessionRows.lock(connection, sessionId);
          SessionRemoval.clearForRebuild(
              connection, sessionId, saves.isEmpty() ? null : saves.get(0));
          for (EncodedSave save : encoded) {
            writer.write(connection, save);
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
    EncodedSave.requireSessionId(sessionId);
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
    EncodedSave.requireSessionId(sessionId);
    return transactions.onConnection(
        "read session " + sessionId, connection -> queries.session(connection, sessionId));
  }

  @Override
  public List<StoredEntry> history(String sessionId, int limit) {
    EncodedSave.requireSessionId(sessionId);
    return transactions.onConnection(
        "read the checkpoint history of session " + sessionId,
        connection -> queries.history(connection, sessionId, limit));
  }

  @Override
  public Optional<StoredEntry> newestCurrentEntry(String sessionId) {
    EncodedSave.requireSessionId(sessionId);
    return transactions.onConnection(
        "read the newest history entry of session " + sessionId,
        connection -> queries.newestCurrentEntry(connection, sessionId));
  }

  @Override
  public Map<Integer, List<StepRecord>> steps(String sessionId, int from, int to) {
    EncodedSave.requireSessionId(sessionId);
    return transactions.onConnection(
        "read the step records of session " + sessionId,
        connection -> queries.steps(connection, sessionId, from, to));
  }

  @Override
  public List<RunRecord> runs(String sessionId) {
    EncodedSave.requireSessionId(sessionId);
    return transactions.onConnection(
        "read the runs of session " + sessionId, connection -> queries.runs(connection, sessionId));
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
    EncodedSave.requireSessionId(sessionId);
    transactions.inTransaction(
        "record the notification of approval " + approvalId,
        connection -> {
          ApprovalRows.markNotified(connection, sessionId, approvalId, notifiedAt);
          return null;
        });
  }

  @Override
  public ProjectionQueries.PendingApprovals pendingApprovals() {
    return transactions.onConnection("count waiting approvals", queries::pendingApprovals);
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
}
