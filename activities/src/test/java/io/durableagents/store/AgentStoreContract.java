package io.durableagents.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import io.durableagents.projection.internal.StoredEntry;
import io.durableagents.projection.internal.StoredSession;
import io.durableagents.session.Approval;
import io.durableagents.session.ApprovalStatus;
import io.durableagents.session.RunRecord;
import io.durableagents.session.RunStatus;
import io.durableagents.session.StepRecord;
import io.durableagents.session.internal.ApprovalRecord;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.durableagents.workflow.internal.wire.TranscriptHash;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link CheckpointStore} must do, whatever the database. A subclass per database opens
 * the store; every test uses session ids of its own, so a shared database is fine.
 */
abstract class AgentStoreContract {
  private static final ObjectMapper JSON = new ObjectMapper();

  protected CheckpointStore store;
  private final List<CheckpointStore> extraStores = new ArrayList<>();

  /**
   * A store with {@code options} on this test's database, migrated; every call during one test
   * opens a store on the same, otherwise empty, database.
   */
  protected abstract CheckpointStore openStore(StoreOptions options) throws Exception;

  @BeforeEach
  void openTheStore() throws Exception {
    store = openStore(StoreOptions.getDefaultInstance());
  }

  @AfterEach
  void closeTheStore() {
    if (store != null) {
      store.close();
    }
    extraStores.forEach(CheckpointStore::close);
  }

  /** Runs {@code sql} with {@code parameters} on this test's database, beside the store. */
  protected abstract void executeSql(String sql, Object... parameters) throws Exception;

  /** Another store on this test's database, with a history limit; closed after the test. */
  protected CheckpointStore storeWithHistoryLimit(int historyLimit) throws Exception {
    CheckpointStore extra =
        openStore(StoreOptions.newBuilder().setHistoryLimit(historyLimit).build());
    extraStores.add(extra);
    return extra;
  }

  @Test
  void savesInOrderAndReadsBack() {
    String session = newSessionId();
    List<Message> transcript = conversation();

    store.saveCheckpoint(
        save(session, "exec-1", 1, 0, RunStatus.IN_PROGRESS, null, 0, transcript.subList(0, 1)));
    store.saveCheckpoint(
        save(
            session,
            "exec-1",
            1,
            1,
            RunStatus.IN_PROGRESS,
            FinishReason.TOOL_CALLS,
            1,
            transcript.subList(1, 2),
            new Usage(10, 5),
            1_000L));
    store.saveCheckpoint(
        save(
            session,
            "exec-1",
            1,
            2,
            RunStatus.FINISHED,
            FinishReason.STOP,
            2,
            transcript.subList(2, 4),
            new Usage(25, 12),
            2_000L));

    assertThat(store.readMessages(session, 4)).containsExactlyElementsOf(transcript);

    StoredSession record = store.session(session).orElseThrow();
    assertThat(record.sessionId()).isEqualTo(session);
    assertThat(record.executionId()).isEqualTo("exec-1");
    assertThat(record.agent()).isEqualTo("helper");
    assertThat(record.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(record.currentRun()).isEqualTo(1);
    assertThat(record.lastStep()).isEqualTo(2);
    assertThat(record.messageCount()).isEqualTo(4);
    assertThat(record.usage()).isEqualTo(new Usage(25, 12));
    assertThat(record.fingerprint()).isEqualTo("fp-1");
    assertThat(record.createdAt()).isEqualTo(500L);
    assertThat(record.updatedAt()).isEqualTo(2_000L);

    List<StoredEntry> history = store.history(session, 10);
    assertThat(history).extracting(StoredEntry::step).containsExactly(2, 1, 0);
    assertThat(history.get(0))
        .isEqualTo(
            new StoredEntry(
                2,
                1,
                2_000L,
                RunStatus.FINISHED,
                FinishReason.STOP,
                4,
                new Usage(25, 12),
                "fp-1",
                null,
                TranscriptHash.of(transcript),
                null,
                null,
                null,
                null));
    assertThat(history.get(2).finishReason()).isNull();
    assertThat(store.history(session, 2)).extracting(StoredEntry::step).containsExactly(2, 1);
    assertThat(store.history(session, 0)).hasSize(3);
  }

  @Test
  void businessState_isKeptWithEachEntry_andASavedAgainStepReplacesIt() throws Exception {
    String session = newSessionId();
    List<Message> transcript = conversation();
    JsonNode first = JSON.readTree("{\"cart\":{\"items\":[\"Zürich \\\"tea\\\"\"]},\"n\":1}");
    JsonNode second = JSON.readTree("{\"cart\":{\"items\":[]},\"n\":2}");
    store.saveCheckpoint(
        withState(
            save(
                session,
                "exec-1",
                1,
                1,
                RunStatus.IN_PROGRESS,
                FinishReason.TOOL_CALLS,
                0,
                transcript.subList(0, 2)),
            first));
    store.saveCheckpoint(
        withState(
            save(
                session,
                "exec-1",
                1,
                2,
                RunStatus.IN_PROGRESS,
                FinishReason.TOOL_CALLS,
                2,
                transcript.subList(2, 3)),
            JSON.createObjectNode()));
    store.saveCheckpoint(
        save(
            session,
            "exec-1",
            1,
            3,
            RunStatus.FINISHED,
            FinishReason.STOP,
            3,
            transcript.subList(3, 4)));

    assertThat(store.history(session, 0))
        .extracting(StoredEntry::businessState)
        .containsExactly(null, JSON.createObjectNode(), first);

    store.saveCheckpoint(
        withState(
            save(
                session,
                "exec-1",
                1,
                2,
                RunStatus.IN_PROGRESS,
                FinishReason.TOOL_CALLS,
                2,
                transcript.subList(2, 3),
                Usage.ZERO,
                600L),
            second));
    assertThat(store.history(session, 0).get(1).businessState()).isEqualTo(second);
  }

  private static CheckpointSave withState(CheckpointSave save, JsonNode state) {
    return new CheckpointSave(
        save.sessionId(),
        save.executionId(),
        save.agent(),
        save.run(),
        save.step(),
        save.status(),
        save.finishReason(),
        save.firstSeq(),
        save.newMessages(),
        save.usage(),
        save.fingerprint(),
        save.savedAt(),
        save.approvals(),
        state,
        save.transcriptHash(),
        null);
  }

  @Test
  void eachEntryKeepsTheHashChainOfItsTranscript_computedByTheStore() {
    String session = newSessionId();
    List<Message> transcript = conversation();
    store.saveCheckpoint(
        save(session, "exec-1", 1, 1, RunStatus.IN_PROGRESS, null, 0, transcript.subList(0, 2)));
    store.saveCheckpoints(
        List.of(
            save(session, "exec-1", 1, 2, RunStatus.IN_PROGRESS, null, 2, transcript.subList(2, 3)),
            save(
                session,
                "exec-1",
                1,
                3,
                RunStatus.FINISHED,
                FinishReason.STOP,
                3,
                transcript.subList(3, 4))));

    assertThat(store.history(session, 0))
        .extracting(StoredEntry::step, StoredEntry::transcriptHash)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(3, TranscriptHash.of(transcript)),
            org.assertj.core.groups.Tuple.tuple(2, TranscriptHash.of(transcript.subList(0, 3))),
            org.assertj.core.groups.Tuple.tuple(1, TranscriptHash.of(transcript.subList(0, 2))));

    // A save that leaves a gap after the stored transcript cannot continue the chain.
    store.saveCheckpoint(
        save(session, "exec-1", 2, 4, RunStatus.FINISHED, null, 9, List.of(Message.user("late"))));
    assertThat(store.history(session, 1).get(0).transcriptHash()).isNull();
  }

  @Test
  void aForkCopiesTheSourcePrefixInTheStore_andWritesWhatAPlainSaveOfTheWholeTranscriptWrites() {
    String source = newSessionId();
    List<Message> transcript = conversation();
    store.saveCheckpoint(
        save(source, "exec-src", 1, 3, RunStatus.FINISHED, FinishReason.STOP, 0, transcript));
    Message patched = Message.user("patched");
    List<Message> forkTranscript = List.of(transcript.get(0), transcript.get(1), patched);

    String fork = newSessionId();
    store.saveFork(
        source,
        2,
        withHash(
            save(
                fork,
                "exec-fork",
                1,
                2,
                RunStatus.IN_PROGRESS,
                FinishReason.TOOL_CALLS,
                2,
                List.of(patched)),
            "hash-2"));
    String plain = newSessionId();
    store.saveCheckpoint(
        withHash(
            save(
                plain,
                "exec-fork",
                1,
                2,
                RunStatus.IN_PROGRESS,
                FinishReason.TOOL_CALLS,
                0,
                forkTranscript),
            "hash-2"));

    assertThat(store.readMessages(fork, 3)).isEqualTo(forkTranscript);
    assertThat(store.history(fork, 0)).isEqualTo(store.history(plain, 0));
    assertThat(store.history(fork, 0).get(0).transcriptHash()).isEqualTo("hash-2");
    assertThat(store.session(fork).orElseThrow())
        .usingRecursiveComparison()
        .ignoringFields("sessionId")
        .isEqualTo(store.session(plain).orElseThrow());
    assertThat(store.readMessages(source, 4)).isEqualTo(transcript);
  }

  @Test
  void aForkOfMoreMessagesThanTheSourceHolds_failsAndWritesNothing() {
    String source = newSessionId();
    List<Message> transcript = conversation();
    store.saveCheckpoint(
        save(source, "exec-src", 1, 1, RunStatus.IN_PROGRESS, null, 0, transcript.subList(0, 2)));

    String fork = newSessionId();
    assertThatThrownBy(
            () ->
                store.saveFork(
                    source,
                    3,
                    save(
                        fork,
                        "exec-fork",
                        1,
                        2,
                        RunStatus.IN_PROGRESS,
                        null,
                        3,
                        List.of(Message.user("x")))))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("holds 2 of the 3 messages");
    assertThat(store.session(fork)).isEmpty();
    assertThat(store.history(fork, 0)).isEmpty();
    assertThatThrownBy(() -> store.readMessages(fork, 1)).isInstanceOf(StoreException.class);
  }

  private static CheckpointSave withHash(CheckpointSave save, String hash) {
    return new CheckpointSave(
        save.sessionId(),
        save.executionId(),
        save.agent(),
        save.run(),
        save.step(),
        save.status(),
        save.finishReason(),
        save.firstSeq(),
        save.newMessages(),
        save.usage(),
        save.fingerprint(),
        save.savedAt(),
        save.approvals(),
        save.businessState(),
        hash,
        null);
  }

  @Test
  void severalSavesInOneCall_writeWhatTheSameSavesOneByOneWrite() {
    List<Message> transcript = conversation();
    List<CheckpointSave> saves = new ArrayList<>();
    String together = newSessionId();
    String apart = newSessionId();
    for (String session : List.of(together, apart)) {
      saves.clear();
      saves.add(
          save(session, "exec-1", 1, 0, RunStatus.IN_PROGRESS, null, 0, transcript.subList(0, 1)));
      saves.add(
          save(
              session,
              "exec-1",
              1,
              1,
              RunStatus.IN_PROGRESS,
              FinishReason.TOOL_CALLS,
              1,
              transcript.subList(1, 2),
              new Usage(10, 5),
              1_000L));
      saves.add(
          save(
              session,
              "exec-1",
              1,
              2,
              RunStatus.FINISHED,
              FinishReason.STOP,
              2,
              transcript.subList(2, 4),
              new Usage(25, 12),
              2_000L));
      if (session.equals(together)) {
        store.saveCheckpoints(saves);
        store.saveCheckpoints(saves); // a retried turn writes them again: nothing changes
      } else {
        saves.forEach(store::saveCheckpoint);
      }
    }

    assertThat(store.readMessages(together, 4)).containsExactlyElementsOf(transcript);
    StoredSession written = store.session(together).orElseThrow();
    StoredSession expected = store.session(apart).orElseThrow();
    assertThat(written).usingRecursiveComparison().ignoringFields("sessionId").isEqualTo(expected);
    assertThat(store.history(together, 0)).isEqualTo(store.history(apart, 0));
  }

  @Test
  void lineageIsRecordedOnTheForksOwnExecutionOnly() {
    String fork = newSessionId();
    List<Message> transcript = conversation();
    store.saveCheckpoint(
        save(fork, "exec-1", 1, 2, RunStatus.FINISHED, FinishReason.STOP, 0, transcript));
    assertThat(store.session(fork).orElseThrow().parentSessionId()).isNull();

    store.recordLineage(
        fork, "exec-other", "parent", 7, "none"); // a late call for another execution
    assertThat(store.session(fork).orElseThrow().parentStep()).isNull();
    store.recordLineage(fork, "exec-1", "parent", 2, "businessState toolResult(call-1)");
    store.recordLineage(fork, "exec-1", "parent", 2, "businessState toolResult(call-1)");
    StoredSession row = store.session(fork).orElseThrow();
    assertThat(row.parentSessionId()).isEqualTo("parent");
    assertThat(row.parentStep()).isEqualTo(2);
    assertThat(row.forkPatch()).isEqualTo("businessState toolResult(call-1)");
    // Later saves keep it.
    store.saveCheckpoint(
        save(
            fork,
            "exec-1",
            2,
            3,
            RunStatus.FINISHED,
            FinishReason.STOP,
            4,
            List.of(Message.user("more")),
            Usage.ZERO,
            3_000L));
    assertThat(store.session(fork).orElseThrow().parentSessionId()).isEqualTo("parent");
  }

  @Test
  void aRetriedSaveIsIdempotent() {
    String session = newSessionId();
    List<Message> transcript = conversation();
    CheckpointSave first =
        save(session, "exec-1", 1, 0, RunStatus.IN_PROGRESS, null, 0, transcript.subList(0, 2));
    store.saveCheckpoint(first);
    StoredSession before = store.session(session).orElseThrow();

    store.saveCheckpoint(first);
    store.saveCheckpoint(first);

    assertThat(store.session(session)).contains(before);
    assertThat(store.history(session, 0)).hasSize(1);
    assertThat(store.readMessages(session, 2)).containsExactlyElementsOf(transcript.subList(0, 2));
    assertThatThrownBy(() -> store.readMessages(session, 3)).isInstanceOf(StoreException.class);
  }

  @Test
  void savingTheSameStepAgainReplacesItsEntry() {
    String session = newSessionId();
    List<Message> transcript = conversation();
    store.saveCheckpoint(
        save(
            session,
            "exec-1",
            1,
            1,
            RunStatus.AWAITING_APPROVAL,
            FinishReason.TOOL_CALLS,
            0,
            transcript.subList(0, 2),
            new Usage(3, 4),
            1_000L));

    store.saveCheckpoint(
        save(
            session,
            "exec-1",
            1,
            1,
            RunStatus.CANCELLED,
            FinishReason.ERROR,
            0,
            transcript.subList(0, 2),
            new Usage(7, 8),
            3_000L));

    assertThat(store.history(session, 0))
        .containsExactly(
            new StoredEntry(
                1,
                1,
                3_000L,
                RunStatus.CANCELLED,
                FinishReason.ERROR,
                2,
                new Usage(7, 8),
                "fp-1",
                null,
                TranscriptHash.of(transcript.subList(0, 2)),
                null,
                null,
                null,
                null));
    StoredSession record = store.session(session).orElseThrow();
    assertThat(record.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(record.usage()).isEqualTo(new Usage(7, 8));
    assertThat(record.updatedAt()).isEqualTo(3_000L);
    assertThat(record.createdAt()).isEqualTo(1_000L);
  }

  @Test
  void aLateSaveOfAnOlderStepDoesNotMoveTheSessionBackwards() {
    String session = newSessionId();
    List<Message> transcript = conversation();
    CheckpointSave step1 =
        save(
            session,
            "exec-1",
            1,
            1,
            RunStatus.IN_PROGRESS,
            FinishReason.TOOL_CALLS,
            0,
            transcript.subList(0, 2),
            new Usage(10, 5),
            1_000L);
    store.saveCheckpoint(step1);
    store.saveCheckpoint(
        save(
            session,
            "exec-1",
            2,
            3,
            RunStatus.FINISHED,
            FinishReason.STOP,
            2,
            transcript.subList(2, 4),
            new Usage(30, 20),
            2_000L));

    store.saveCheckpoint(step1);

    StoredSession record = store.session(session).orElseThrow();
    assertThat(record.lastStep()).isEqualTo(3);
    assertThat(record.currentRun()).isEqualTo(2);
    assertThat(record.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(record.messageCount()).isEqualTo(4);
    assertThat(record.usage()).isEqualTo(new Usage(30, 20));
    assertThat(record.updatedAt()).isEqualTo(2_000L);
    assertThat(store.history(session, 0)).extracting(StoredEntry::step).containsExactly(3, 1);
    assertThat(store.readMessages(session, 4)).containsExactlyElementsOf(transcript);
  }

  @Test
  void readMessagesReturnsExactlyTheFirstCountInOrder() {
    String session = newSessionId();
    List<Message> transcript = conversation();
    store.saveCheckpoint(
        save(session, "exec-1", 1, 0, RunStatus.IN_PROGRESS, null, 0, transcript.subList(0, 3)));

    assertThat(store.readMessages(session, 0)).isEmpty();
    assertThat(store.readMessages(session, 2)).containsExactlyElementsOf(transcript.subList(0, 2));
    assertThat(store.readMessages(session, 3)).containsExactlyElementsOf(transcript.subList(0, 3));
  }

  @Test
  void readMessagesFailsWhenTheStoreHoldsFewer() {
    String session = newSessionId();
    List<Message> transcript = conversation();
    store.saveCheckpoint(
        save(session, "exec-1", 1, 0, RunStatus.IN_PROGRESS, null, 0, transcript.subList(0, 3)));

    assertThatThrownBy(() -> store.readMessages(session, 4))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining(session)
        .hasMessageContaining("4")
        .hasMessageContaining("3");
    assertThatThrownBy(() -> store.readMessages(newSessionId(), 1))
        .isInstanceOf(StoreException.class);
    assertThatThrownBy(() -> store.readMessages(session, -1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void messagesReadBackExactly_whateverTheirCharacters() throws Exception {
    String session = newSessionId();
    List<Message> transcript =
        List.of(
            Message.user(
                "Zürich, 京都 or Αθήνα? \uD83D\uDE80 \"quoted\" \\ back\\slash\n\ttab \u0001"),
            new Message(
                Role.TOOL,
                null,
                null,
                "call_1",
                "lookup",
                JSON.readTree("{\"städte\":[\"Zürich\",\"京都\"],\"emoji\":\"\uD83D\uDE80\"}")));
    store.saveCheckpoint(save(session, "exec-1", 1, 0, RunStatus.IDLE, null, 0, transcript));

    assertThat(store.readMessages(session, 2)).containsExactlyElementsOf(transcript);
  }

  @Test
  void aStoredMessageThatIsNotAMessage_failsTheReadNamingIt() throws Exception {
    String session = newSessionId();
    store.saveCheckpoint(
        save(
            session, "exec-1", 1, 0, RunStatus.IN_PROGRESS, null, 0, conversation().subList(0, 3)));

    executeSql(
        "UPDATE agent_messages SET body = ? WHERE session_id = ? AND seq = 1",
        "{not json",
        session);
    assertThatThrownBy(() -> store.readMessages(session, 3))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("message 1 of session " + session + " is not a valid message JSON");

    executeSql(
        "UPDATE agent_messages SET body = ? WHERE session_id = ? AND seq = 1", "null", session);
    assertThatThrownBy(() -> store.readMessages(session, 3))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("message 1 of session " + session + " is stored as JSON null");
    assertThat(store.readMessages(session, 1)).containsExactly(conversation().get(0));
  }

  @Test
  void readMessagesFailsOnAGapInTheTranscript() {
    String session = newSessionId();
    List<Message> transcript = conversation();
    store.saveCheckpoint(
        save(session, "exec-1", 1, 0, RunStatus.IN_PROGRESS, null, 0, transcript.subList(0, 1)));
    // Seq 1 never arrived; seq 2 and 3 did.
    store.saveCheckpoint(
        save(session, "exec-1", 1, 2, RunStatus.IN_PROGRESS, null, 2, transcript.subList(2, 4)));

    assertThat(store.readMessages(session, 1)).containsExactly(transcript.get(0));
    assertThatThrownBy(() -> store.readMessages(session, 4))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("missing");
    // A range that skips the gap reads; one across it fails.
    assertThat(store.readMessages(session, 2, 4))
        .containsExactlyElementsOf(transcript.subList(2, 4));
    assertThat(store.readMessages(session, 3, 3)).isEmpty();
    assertThatThrownBy(() -> store.readMessages(session, 1, 3))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("asked for messages 1 to 2 but found only 0");
    assertThatThrownBy(() -> store.readMessages(session, 3, 2))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aDifferentExecutionIdReplacesTheOldSession() {
    String session = newSessionId();
    List<Message> transcript = conversation();
    store.saveCheckpoint(
        save(session, "exec-old", 1, 0, RunStatus.IN_PROGRESS, null, 0, transcript.subList(0, 2)));
    store.saveCheckpoint(
        save(
            session,
            "exec-old",
            1,
            5,
            RunStatus.FINISHED,
            FinishReason.STOP,
            2,
            transcript.subList(2, 4),
            new Usage(50, 50),
            5_000L));

    Message fresh = Message.user("a brand-new conversation");
    store.saveCheckpoint(
        save(
            session,
            "exec-new",
            1,
            0,
            RunStatus.IN_PROGRESS,
            null,
            0,
            List.of(fresh),
            Usage.ZERO,
            9_000L));

    StoredSession record = store.session(session).orElseThrow();
    assertThat(record.executionId()).isEqualTo("exec-new");
    assertThat(record.lastStep()).isZero();
    assertThat(record.messageCount()).isEqualTo(1);
    assertThat(record.usage()).isEqualTo(Usage.ZERO);
    assertThat(record.createdAt()).isEqualTo(9_000L);
    assertThat(store.history(session, 0)).extracting(StoredEntry::step).containsExactly(0);
    assertThat(store.readMessages(session, 1)).containsExactly(fresh);
    assertThatThrownBy(() -> store.readMessages(session, 2)).isInstanceOf(StoreException.class);
  }

  @Test
  void unknownSessionsAreEmpty() {
    String session = newSessionId();
    assertThat(store.session(session)).isEmpty();
    assertThat(store.history(session, 10)).isEmpty();
    assertThat(store.readMessages(session, 0)).isEmpty();
  }

  @Test
  void concurrentSavesOnSeveralSessionsAllLand() throws Exception {
    int threads = 8;
    int steps = 25;
    List<String> sessions = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      sessions.add(newSessionId());
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Void>> done = new ArrayList<>();
      for (String session : sessions) {
        Callable<Void> writer =
            () -> {
              start.await();
              for (int step = 0; step < steps; step++) {
                store.saveCheckpoint(
                    save(
                        session,
                        "exec-" + session,
                        1,
                        step,
                        RunStatus.IN_PROGRESS,
                        FinishReason.TOOL_CALLS,
                        2 * step,
                        List.of(numbered(session, 2 * step), numbered(session, 2 * step + 1)),
                        new Usage(step, step),
                        1_000L + step));
              }
              return null;
            };
        done.add(pool.submit(writer));
      }
      start.countDown();
      for (Future<Void> future : done) {
        future.get(2, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }

    for (String session : sessions) {
      StoredSession record = store.session(session).orElseThrow();
      assertThat(record.lastStep()).isEqualTo(steps - 1);
      assertThat(record.messageCount()).isEqualTo(2 * steps);
      assertThat(store.history(session, 0)).hasSize(steps);
      List<Message> messages = store.readMessages(session, 2 * steps);
      for (int seq = 0; seq < messages.size(); seq++) {
        assertThat(messages.get(seq)).isEqualTo(numbered(session, seq));
      }
    }
  }

  // ---- history: order, limit, the per-store history limit --------------------------------------

  @Test
  void historyIsNewestStepFirst_whateverTheOrderOfSaves_andLimited() {
    String session = newSessionId();
    List<Message> transcript = conversation();
    // Steps land out of order, as retried saves may.
    store.saveCheckpoint(
        save(
            session,
            "exec-1",
            1,
            0,
            RunStatus.IN_PROGRESS,
            null,
            0,
            transcript.subList(0, 1),
            Usage.ZERO,
            1_000L));
    store.saveCheckpoint(
        save(
            session,
            "exec-1",
            1,
            2,
            RunStatus.FINISHED,
            FinishReason.STOP,
            2,
            transcript.subList(2, 4),
            new Usage(9, 9),
            3_000L));
    store.saveCheckpoint(
        save(
            session,
            "exec-1",
            1,
            1,
            RunStatus.IN_PROGRESS,
            FinishReason.TOOL_CALLS,
            1,
            transcript.subList(1, 2),
            new Usage(4, 4),
            2_000L));

    assertThat(store.history(session, 0)).extracting(StoredEntry::step).containsExactly(2, 1, 0);
    assertThat(store.history(session, 0))
        .extracting(StoredEntry::savedAt)
        .containsExactly(3_000L, 2_000L, 1_000L);
    assertThat(store.history(session, 0))
        .extracting(StoredEntry::messageCount)
        .containsExactly(4, 2, 1);
    assertThat(store.history(session, 1)).extracting(StoredEntry::step).containsExactly(2);
    assertThat(store.history(session, 2)).extracting(StoredEntry::step).containsExactly(2, 1);
    assertThat(store.history(session, 99)).hasSize(3);
    assertThat(store.history(session, -1)).hasSize(3);
    assertThat(store.history(newSessionId(), 5)).isEmpty();
    // The session row stays at the newest step.
    assertThat(store.session(session).orElseThrow().lastStep()).isEqualTo(2);
  }

  @Test
  void theDefaultHistoryLimitKeeps50Entries() {
    assertThat(store.historyLimit()).isEqualTo(StoreOptions.DEFAULT_HISTORY_LIMIT).isEqualTo(50);
    String session = newSessionId();
    int steps = 55;
    for (int step = 0; step < steps; step++) {
      store.saveCheckpoint(
          save(
              session,
              "exec-1",
              1,
              step,
              RunStatus.IN_PROGRESS,
              null,
              step,
              List.of(numbered(session, step)),
              Usage.ZERO,
              1_000L + step));
    }

    List<StoredEntry> history = store.history(session, 0);
    assertThat(history).hasSize(50);
    assertThat(history.get(0).step()).isEqualTo(54);
    assertThat(history.get(49).step()).isEqualTo(5);
    assertThat(store.readMessages(session, steps)).hasSize(steps);
  }

  @Test
  void aHistoryLimitKeepsTheNewestSteps_andTheWholeTranscript() throws Exception {
    CheckpointStore limited = storeWithHistoryLimit(3);
    assertThat(limited.historyLimit()).isEqualTo(3);
    String session = newSessionId();
    List<CheckpointSave> saves = new ArrayList<>();
    for (int step = 0; step < 6; step++) {
      saves.add(
          save(
              session,
              "exec-1",
              1,
              step,
              RunStatus.IN_PROGRESS,
              null,
              2 * step,
              List.of(numbered(session, 2 * step), numbered(session, 2 * step + 1)),
              new Usage(step, step),
              1_000L + step));
    }
    saves.forEach(limited::saveCheckpoint);

    assertThat(limited.history(session, 0)).extracting(StoredEntry::step).containsExactly(5, 4, 3);
    assertThat(limited.readMessages(session, 12)).hasSize(12);

    // A late retry of a dropped step comes and goes again; a retried kept step stays.
    limited.saveCheckpoint(saves.get(1));
    limited.saveCheckpoint(saves.get(4));
    assertThat(limited.history(session, 0)).extracting(StoredEntry::step).containsExactly(5, 4, 3);
    assertThat(limited.session(session).orElseThrow().lastStep()).isEqualTo(5);
  }

  @Test
  void aHistoryLimitOfZeroKeepsNoEntries_butTheSessionAndTranscript() throws Exception {
    CheckpointStore none = storeWithHistoryLimit(0);
    String session = newSessionId();
    List<Message> transcript = conversation();
    none.saveCheckpoint(
        save(session, "exec-1", 1, 0, RunStatus.IN_PROGRESS, null, 0, transcript.subList(0, 2)));
    none.saveCheckpoint(
        save(
            session,
            "exec-1",
            1,
            1,
            RunStatus.FINISHED,
            FinishReason.STOP,
            2,
            transcript.subList(2, 4),
            new Usage(3, 3),
            900L));

    assertThat(none.history(session, 0)).isEmpty();
    assertThat(none.session(session).orElseThrow().lastStep()).isEqualTo(1);
    assertThat(none.readMessages(session, 4)).containsExactlyElementsOf(transcript);
  }

  @Test
  void invalidHistoryLimitsAreRefused() {
    assertThatThrownBy(() -> StoreOptions.newBuilder().setHistoryLimit(-1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("historyLimit");
    assertThat(StoreOptions.fromEnvironment(java.util.Map.of()).getHistoryLimit()).isEqualTo(50);
    assertThat(
            StoreOptions.fromEnvironment(
                    java.util.Map.of(StoreOptions.HISTORY_LIMIT_VARIABLE, " 7 "))
                .getHistoryLimit())
        .isEqualTo(7);
    assertThatThrownBy(
            () ->
                StoreOptions.fromEnvironment(
                    java.util.Map.of(StoreOptions.HISTORY_LIMIT_VARIABLE, "lots")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(StoreOptions.HISTORY_LIMIT_VARIABLE);
  }

  // ---- monotonic under retries and late arrivals
  // --------------------------------------------------

  @Test
  void aLateRetryOfAnEarlierSaveOfTheSameStepDoesNotUndoTheNewerOne() {
    String session = newSessionId();
    List<Message> transcript = conversation();
    CheckpointSave paused =
        save(
            session,
            "exec-1",
            1,
            1,
            RunStatus.AWAITING_APPROVAL,
            FinishReason.AWAITING_APPROVAL,
            0,
            transcript.subList(0, 2),
            new Usage(5, 5),
            1_000L);
    CheckpointSave resumed =
        save(
            session,
            "exec-1",
            1,
            1,
            RunStatus.IN_PROGRESS,
            FinishReason.AWAITING_APPROVAL,
            2,
            List.of(),
            new Usage(5, 5),
            2_000L);
    store.saveCheckpoint(paused);
    store.saveCheckpoint(resumed);

    store.saveCheckpoint(paused);

    assertThat(store.history(session, 0))
        .singleElement()
        .satisfies(
            entry -> {
              assertThat(entry.status()).isEqualTo(RunStatus.IN_PROGRESS);
              assertThat(entry.savedAt()).isEqualTo(2_000L);
            });
    StoredSession record = store.session(session).orElseThrow();
    assertThat(record.status()).isEqualTo(RunStatus.IN_PROGRESS);
    assertThat(record.updatedAt()).isEqualTo(2_000L);
  }

  @Test
  void aLateSaveOfThePreviousWorkflowWithTheSameIdIsIgnored() {
    String session = newSessionId();
    List<Message> transcript = conversation();
    CheckpointSave old =
        save(
            session,
            "exec-old",
            1,
            0,
            RunStatus.IN_PROGRESS,
            null,
            0,
            transcript.subList(0, 2),
            Usage.ZERO,
            1_000L);
    store.saveCheckpoint(old);
    Message fresh = Message.user("new conversation");
    store.saveCheckpoint(
        save(
            session,
            "exec-new",
            1,
            0,
            RunStatus.IN_PROGRESS,
            null,
            0,
            List.of(fresh),
            Usage.ZERO,
            5_000L));

    store.saveCheckpoint(old);
    store.saveCheckpoint(
        save(
            session,
            "exec-old",
            1,
            3,
            RunStatus.FINISHED,
            FinishReason.STOP,
            2,
            transcript.subList(2, 4),
            Usage.ZERO,
            1_500L));

    StoredSession record = store.session(session).orElseThrow();
    assertThat(record.executionId()).isEqualTo("exec-new");
    assertThat(record.lastStep()).isZero();
    assertThat(store.readMessages(session, 1)).containsExactly(fresh);
    assertThatThrownBy(() -> store.readMessages(session, 2)).isInstanceOf(StoreException.class);
    assertThat(store.history(session, 0)).extracting(StoredEntry::step).containsExactly(0);
  }

  // ---- step records and run times
  // ---------------------------------------------------------------------------

  @Test
  void stepRecordsAndRunTimes_areWrittenWithTheirEntries_andARetryWritesNothingTwice() {
    String session = newSessionId();
    List<Message> transcript = conversation();
    StepRecord turn =
        new StepRecord(StepRecord.MODEL, "gpt-test", 1_000L, 1_400L, new Usage(10, 5), null, null);
    StepRecord weather =
        new StepRecord(StepRecord.TOOL, "get_weather", 1_500L, 1_750L, null, null, null);
    StepRecord unknown =
        new StepRecord(StepRecord.TOOL, "nope", null, null, null, "unknown_tool", null);
    StepRecord refused =
        new StepRecord(StepRecord.TOOL, "charge", null, null, null, "rejected", null);
    StepRecord failed =
        new StepRecord(
            StepRecord.MODEL,
            "gpt-test",
            2_100L,
            2_900L,
            null,
            "model_unavailable: cut",
            "Half an");
    CheckpointSave first =
        withSteps(
            save(
                session,
                "exec-1",
                1,
                1,
                RunStatus.IN_PROGRESS,
                FinishReason.TOOL_CALLS,
                0,
                transcript.subList(0, 2),
                new Usage(10, 5),
                1_450L),
            900L,
            List.of(new CheckpointSave.Step(0, turn)));
    CheckpointSave batch =
        withSteps(
            save(
                session,
                "exec-1",
                1,
                2,
                RunStatus.IN_PROGRESS,
                FinishReason.TOOL_CALLS,
                2,
                transcript.subList(2, 3),
                new Usage(10, 5),
                1_800L),
            900L,
            List.of(new CheckpointSave.Step(0, weather), new CheckpointSave.Step(1, unknown)));
    // The same entry saved again (an approval's decision) adds the rows of its later calls.
    CheckpointSave decided =
        withSteps(
            save(
                session,
                "exec-1",
                1,
                2,
                RunStatus.IN_PROGRESS,
                FinishReason.TOOL_CALLS,
                3,
                List.of(),
                new Usage(10, 5),
                1_900L),
            900L,
            List.of(new CheckpointSave.Step(2, refused)));
    CheckpointSave failedTurn =
        withSteps(
            save(
                session,
                "exec-1",
                1,
                3,
                RunStatus.FAILED,
                FinishReason.ERROR,
                3,
                List.of(),
                new Usage(10, 5),
                3_000L),
            // A run picked up after continue-as-new reports a later start: the first one stays.
            2_000L,
            List.of(new CheckpointSave.Step(0, failed)));

    store.saveCheckpoint(first);
    store.saveCheckpoint(batch);
    store.saveCheckpoint(batch);
    store.saveCheckpoint(decided);
    store.saveCheckpoint(failedTurn);
    store.saveCheckpoint(first); // a late retry of an older save

    assertThat(store.steps(session, 0, 10))
        .containsExactly(
            java.util.Map.entry(1, List.of(turn)),
            java.util.Map.entry(2, List.of(weather, unknown, refused)),
            java.util.Map.entry(3, List.of(failed)));
    assertThat(store.steps(session, 2, 2)).containsOnlyKeys(2);
    assertThat(store.steps(session, 0, 10).get(1).get(0).durationMs()).isEqualTo(400L);
    assertThat(store.runs(session))
        .containsExactly(new RunRecord(1, RunStatus.FAILED, 900L, 3_000L));
    assertThat(store.runs(session).get(0).durationMs()).isEqualTo(2_100L);

    // A resumed run is unfinished again, then finishes at its new settling entry.
    store.saveCheckpoint(
        save(
            session,
            "exec-1",
            1,
            4,
            RunStatus.IN_PROGRESS,
            FinishReason.RESUMED,
            3,
            List.of(),
            new Usage(10, 5),
            4_000L));
    assertThat(store.runs(session))
        .containsExactly(new RunRecord(1, RunStatus.IN_PROGRESS, 900L, null));
    store.saveCheckpoint(
        save(
            session,
            "exec-1",
            1,
            5,
            RunStatus.FINISHED,
            FinishReason.STOP,
            3,
            transcript.subList(3, 4),
            new Usage(10, 5),
            5_000L));
    assertThat(store.runs(session))
        .containsExactly(new RunRecord(1, RunStatus.FINISHED, 900L, 5_000L));

    assertThat(store.delete(session, false)).isTrue();
    assertThat(store.steps(session, 0, 10)).isEmpty();
    assertThat(store.runs(session)).isEmpty();
  }

  @Test
  void aHistoryLimitDropsTheStepRecordsOfTheEntriesItTrims() throws Exception {
    CheckpointStore limited = storeWithHistoryLimit(2);
    String session = newSessionId();
    for (int step = 0; step < 4; step++) {
      StepRecord turn =
          new StepRecord(StepRecord.MODEL, "m", 10L * step, 10L * step + 5, null, null, null);
      limited.saveCheckpoint(
          withSteps(
              save(
                  session,
                  "exec-1",
                  1,
                  step,
                  RunStatus.IN_PROGRESS,
                  null,
                  step,
                  List.of(numbered(session, step)),
                  Usage.ZERO,
                  1_000L + step),
              1_000L,
              List.of(new CheckpointSave.Step(0, turn))));
    }

    assertThat(limited.history(session, 0)).extracting(StoredEntry::step).containsExactly(3, 2);
    assertThat(limited.steps(session, 0, 10)).containsOnlyKeys(2, 3);
  }

  private static CheckpointSave withSteps(
      CheckpointSave save, long runStartedAt, List<CheckpointSave.Step> steps) {
    return new CheckpointSave(
        save.sessionId(),
        save.executionId(),
        save.agent(),
        save.run(),
        save.step(),
        save.status(),
        save.finishReason(),
        save.firstSeq(),
        save.newMessages(),
        save.usage(),
        save.fingerprint(),
        save.savedAt(),
        save.approvals(),
        save.businessState(),
        save.transcriptHash(),
        new CheckpointSave.RunInfo(1, save.usage(), null, null, runStartedAt),
        steps);
  }

  // ---- delete and prune
  // ---------------------------------------------------------------------------

  @Test
  void resetMarksTheLaterEntriesSuperseded_andTheSessionGoesOnFromTheEntry() {
    String session = newSessionId();
    List<Message> transcript = conversation();
    store.saveCheckpoint(
        save(
            session,
            "exec-1",
            1,
            0,
            RunStatus.IN_PROGRESS,
            null,
            0,
            transcript.subList(0, 2),
            new Usage(10, 3),
            500L));
    store.saveCheckpoint(
        save(session, "exec-1", 1, 1, RunStatus.IN_PROGRESS, null, 2, transcript.subList(2, 3)));
    store.saveCheckpoint(
        save(
            session,
            "exec-1",
            1,
            2,
            RunStatus.FINISHED,
            FinishReason.STOP,
            3,
            transcript.subList(3, 4),
            new Usage(30, 9),
            500L));
    String reset = "reset to step 0 at 2026-12-04T01:30:00Z";

    CheckpointStore.ResetPoint point = store.reset(session, "exec-2", 0, reset).orElseThrow();

    assertThat(point.entry().step()).isZero();
    assertThat(point.session().lastStep()).isEqualTo(2);
    assertThat(supersededSteps(session)).containsExactly(2, 1);
    StoredSession row = store.session(session).orElseThrow();
    assertThat(row.executionId()).isEqualTo("exec-2");
    assertThat(row.messageCount()).isEqualTo(2);
    assertThat(row.lastStep()).isEqualTo(2);
    assertThat(row.resetTo()).isZero();
    // Where the session's status stands too: the entry's run does not go on, and the totals are
    // the entry's (the superseded entries' tokens are not counted).
    assertThat(row.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(point.session().usage()).isEqualTo(new Usage(30, 9));
    assertThat(row.usage()).isEqualTo(new Usage(10, 3));
    assertThat(store.readMessages(session, 2)).containsExactlyElementsOf(transcript.subList(0, 2));
    assertThatThrownBy(() -> store.readMessages(session, 3)).isInstanceOf(StoreException.class);
    // Where the session stands is the reset entry, not the newer entries it superseded.
    assertThat(store.newestCurrentEntry(session)).map(StoredEntry::step).contains(0);
    // A retried reset changes nothing more.
    assertThat(store.reset(session, "exec-2", 0, reset)).isPresent();
    assertThat(supersededSteps(session)).containsExactly(2, 1);

    // The new line's saves go on after the superseded entries.
    Message other = Message.assistant("Another answer.", null);
    store.saveCheckpoint(
        save(session, "exec-2", 2, 3, RunStatus.FINISHED, FinishReason.STOP, 2, List.of(other)));
    assertThat(store.readMessages(session, 3))
        .containsExactly(transcript.get(0), transcript.get(1), other);
    assertThat(store.history(session, 0)).extracting(StoredEntry::step).containsExactly(3, 2, 1, 0);
    assertThat(supersededSteps(session)).containsExactly(2, 1);
    assertThat(store.session(session).orElseThrow().lastStep()).isEqualTo(3);
    assertThat(store.newestCurrentEntry(session)).map(StoredEntry::step).contains(3);

    // Neither a step the store does not keep, nor a superseded one, is reset to.
    assertThat(store.reset(session, "exec-3", 9, "reset to step 9")).isEmpty();
    assertThat(store.reset(session, "exec-3", 1, "reset to step 1")).isEmpty();
    assertThat(store.reset(newSessionId(), "exec-3", 0, "reset to step 0")).isEmpty();
    assertThat(store.session(session).orElseThrow().executionId()).isEqualTo("exec-2");
  }

  private List<Integer> supersededSteps(String session) {
    return store.history(session, 0).stream()
        .filter(entry -> entry.supersededBy() != null)
        .map(StoredEntry::step)
        .toList();
  }

  @Test
  void deleteRemovesEveryRowOfTheSession_andNothingElse() {
    String session = newSessionId();
    String other = newSessionId();
    List<Message> transcript = conversation();
    store.saveCheckpoint(approvalSave(session, "exec-1", 1, 1_000L, ApprovalStatus.PENDING));
    store.saveCheckpoint(
        save(
            session,
            "exec-1",
            1,
            2,
            RunStatus.AWAITING_APPROVAL,
            null,
            2,
            transcript.subList(2, 4),
            Usage.ZERO,
            2_000L));
    store.saveCheckpoint(
        save(
            other,
            "exec-2",
            1,
            0,
            RunStatus.FINISHED,
            FinishReason.STOP,
            0,
            transcript,
            Usage.ZERO,
            2_000L));

    assertThat(store.delete(session, false)).isTrue();

    assertThat(store.session(session)).isEmpty();
    assertThat(store.history(session, 0)).isEmpty();
    assertThat(store.approvals(session, false)).isEmpty();
    assertThatThrownBy(() -> store.readMessages(session, 1)).isInstanceOf(StoreException.class);
    assertThat(store.delete(session, false)).isFalse();
    assertThat(store.delete(newSessionId(), true)).isFalse();
    // The other session is untouched.
    assertThat(store.session(other)).isPresent();
    assertThat(store.readMessages(other, 4)).containsExactlyElementsOf(transcript);
    assertThat(store.history(other, 0)).hasSize(1);
  }

  @Test
  void deleteKeepingHistory_keepsTheEntriesAndTheirMessages() {
    String session = newSessionId();
    List<Message> transcript = conversation();
    store.saveCheckpoint(approvalSave(session, "exec-1", 1, 1_000L, ApprovalStatus.APPROVED));
    store.saveCheckpoint(
        save(
            session,
            "exec-1",
            1,
            2,
            RunStatus.FINISHED,
            FinishReason.STOP,
            2,
            transcript.subList(2, 4),
            new Usage(8, 2),
            2_000L));
    List<StoredEntry> before = store.history(session, 0);

    assertThat(store.delete(session, true)).isTrue();

    assertThat(store.session(session)).isEmpty();
    assertThat(store.approvals(session, false)).isEmpty();
    // The entries stay as they were, retired: marked superseded by the delete, their messages kept
    // aside, so that a new session under the id writes over neither.
    List<StoredEntry> kept = store.history(session, 0);
    assertThat(kept)
        .extracting(StoredEntry::step)
        .isEqualTo(before.stream().map(StoredEntry::step).toList());
    assertThat(kept)
        .extracting(StoredEntry::messageCount)
        .isEqualTo(before.stream().map(StoredEntry::messageCount).toList());
    String retiredBy = kept.get(0).supersededBy();
    assertThat(retiredBy).startsWith("delete with kept history at ");
    assertThat(kept).allMatch(entry -> retiredBy.equals(entry.supersededBy()));
    assertThatThrownBy(() -> store.readMessages(session, 1)).isInstanceOf(StoreException.class);
    // A new session under the id numbers its runs and entries after the kept ones.
    assertThat(store.retireKeptHistory(session, "delete with kept history before now"))
        .map(StoredEntry::step)
        .contains(2);
    assertThat(store.history(session, 0)).isEqualTo(kept);

    // Deleting again with the history kept finds nothing more to remove; without, the rest goes.
    assertThat(store.delete(session, true)).isFalse();
    assertThat(store.delete(session, false)).isTrue();
    assertThat(store.history(session, 0)).isEmpty();
  }

  @Test
  void pruneRemovesSettledSessionsOlderThanTheCutoff_andOldHistoryEntries() {
    List<Message> transcript = conversation();
    String oldFinished = newSessionId();
    store.saveCheckpoint(approvalSave(oldFinished, "exec-a", 1, 500L, ApprovalStatus.APPROVED));
    store.saveCheckpoint(
        save(
            oldFinished,
            "exec-a",
            1,
            2,
            RunStatus.FINISHED,
            FinishReason.STOP,
            2,
            transcript.subList(2, 4),
            Usage.ZERO,
            1_000L));
    String oldWaiting = newSessionId();
    store.saveCheckpoint(approvalSave(oldWaiting, "exec-b", 1, 1_000L, ApprovalStatus.PENDING));
    String recent = newSessionId();
    for (int step = 0; step < 3; step++) {
      store.saveCheckpoint(
          save(
              recent,
              "exec-c",
              1,
              step,
              RunStatus.IN_PROGRESS,
              null,
              step,
              List.of(transcript.get(step)),
              Usage.ZERO,
              1_000L + 2_000L * step));
    }
    store.saveCheckpoint(
        save(
            recent,
            "exec-c",
            1,
            3,
            RunStatus.FINISHED,
            FinishReason.STOP,
            3,
            List.of(transcript.get(3)),
            Usage.ZERO,
            7_000L));

    PruneResult result = store.prune(java.time.Instant.ofEpochMilli(4_000L));

    // oldFinished: 4 messages, 2 entries, 1 approval; oldWaiting keeps its row, approval and
    // messages but loses its entry; recent loses the entries saved at 1000 and 3000.
    assertThat(result).isEqualTo(new PruneResult(1, 2 + 1 + 2, 4, 1));
    assertThat(store.session(oldFinished)).isEmpty();
    assertThat(store.history(oldFinished, 0)).isEmpty();
    assertThat(store.approvals(oldFinished, false)).isEmpty();
    assertThatThrownBy(() -> store.readMessages(oldFinished, 1)).isInstanceOf(StoreException.class);

    assertThat(store.session(oldWaiting).orElseThrow().status())
        .isEqualTo(RunStatus.AWAITING_APPROVAL);
    assertThat(store.approvals(oldWaiting, true)).hasSize(1);
    assertThat(store.history(oldWaiting, 0)).isEmpty();
    assertThat(store.readMessages(oldWaiting, 2)).hasSize(2);

    assertThat(store.history(recent, 0)).extracting(StoredEntry::step).containsExactly(3, 2);
    assertThat(store.readMessages(recent, 4)).containsExactlyElementsOf(transcript);

    assertThat(store.prune(java.time.Instant.ofEpochMilli(4_000L)).isEmpty()).isTrue();
  }

  @Test
  void pruneByAgeCountsBackFromNow_andDropsMessagesNothingRefersTo() {
    List<Message> transcript = conversation();
    long now = System.currentTimeMillis();
    long twoHoursAgo = now - java.time.Duration.ofHours(2).toMillis();
    String stale = newSessionId();
    store.saveCheckpoint(
        save(
            stale,
            "exec-a",
            1,
            0,
            RunStatus.FAILED,
            FinishReason.ERROR,
            0,
            transcript.subList(0, 2),
            Usage.ZERO,
            twoHoursAgo));
    String kept = newSessionId();
    store.saveCheckpoint(
        save(
            kept,
            "exec-b",
            1,
            0,
            RunStatus.FINISHED,
            FinishReason.STOP,
            0,
            transcript,
            Usage.ZERO,
            now));
    // A session deleted with its history kept, whose history then grows old.
    String orphan = newSessionId();
    store.saveCheckpoint(
        save(
            orphan,
            "exec-c",
            1,
            0,
            RunStatus.FINISHED,
            FinishReason.STOP,
            0,
            transcript.subList(0, 3),
            Usage.ZERO,
            now - 60_000L));
    store.delete(orphan, true);

    PruneResult result = store.prune(java.time.Duration.ofMinutes(30));

    assertThat(result.sessions()).isEqualTo(1);
    assertThat(result.historyEntries()).isEqualTo(1);
    assertThat(result.messages()).isEqualTo(2);
    assertThat(store.session(stale)).isEmpty();
    assertThat(store.session(kept)).isPresent();

    PruneResult later = store.prune(java.time.Instant.ofEpochMilli(now - 30_000L));
    assertThat(later.sessions()).isZero();
    assertThat(later.historyEntries()).isEqualTo(1); // the orphan's entry, a minute old
    assertThat(later.messages()).isEqualTo(3); // and with it the orphan's messages
    assertThatThrownBy(() -> store.prune(java.time.Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ---- approvals
  // ----------------------------------------------------------------------------------

  @Test
  void approvalsAreListedOldestFirst_pendingOnlyOnRequest_andDecisionsNeverRevert() {
    String first = newSessionId();
    String second = newSessionId();
    CheckpointSave secondPending =
        approvalSave(second, "exec-2", 1, 3_000L, ApprovalStatus.PENDING);
    store.saveCheckpoint(secondPending);
    store.saveCheckpoint(approvalSave(first, "exec-1", 1, 1_000L, ApprovalStatus.PENDING));
    store.saveCheckpoint(approvalSave(first, "exec-1", 2, 2_000L, ApprovalStatus.PENDING));
    // The first session's first approval is decided.
    store.saveCheckpoint(approvalSave(first, "exec-1", 1, 1_000L, ApprovalStatus.APPROVED));

    assertThat(store.approvals(null, false))
        .filteredOn(
            a ->
                a.approval().approvalId().startsWith(first)
                    || a.approval().approvalId().startsWith(second))
        .extracting(a -> a.approval().requestedAt())
        .containsExactly(1_000L, 2_000L, 3_000L);
    assertThat(store.approvals(null, true))
        .filteredOn(
            a ->
                a.approval().approvalId().startsWith(first)
                    || a.approval().approvalId().startsWith(second))
        .extracting(a -> a.approval().approvalId())
        .containsExactly(first + "/approval-2", second + "/approval-1");
    assertThat(store.approvals(first, false))
        .extracting(ApprovalRecord::status)
        .containsExactly(ApprovalStatus.APPROVED, ApprovalStatus.PENDING);
    assertThat(store.approvals(first, false).get(0).decidedBy()).isEqualTo("ops");

    // A late retry of the save that requested it does not make it pending again.
    store.saveCheckpoint(approvalSave(first, "exec-1", 1, 1_000L, ApprovalStatus.PENDING));
    assertThat(store.approvals(first, true))
        .extracting(a -> a.approval().approvalId())
        .containsExactly(first + "/approval-2");

    store.markApprovalNotified(second, second + "/approval-1", 3_500L);
    store.markApprovalNotified(second, second + "/approval-1", 9_999L);
    assertThat(store.approvals(second, false))
        .singleElement()
        .satisfies(a -> assertThat(a.notifiedAt()).isEqualTo(3_500L));

    // A pause saved again (by the next attempt of a workflow task that was lost) takes the times
    // its history records; a decided approval keeps its own.
    store.saveCheckpoint(approvalSave(second, "exec-2", 1, 3_700L, ApprovalStatus.PENDING));
    assertThat(store.approvals(second, false))
        .singleElement()
        .satisfies(a -> assertThat(a.approval().requestedAt()).isEqualTo(3_700L))
        .satisfies(a -> assertThat(a.notifiedAt()).isEqualTo(3_500L));
    store.saveCheckpoint(approvalSave(first, "exec-1", 1, 1_500L, ApprovalStatus.APPROVED));
    assertThat(store.approvals(first, false).get(0).approval().requestedAt()).isEqualTo(1_000L);
  }

  // ---- rebuild
  // ------------------------------------------------------------------------------------

  @Test
  void rebuildReplacesTheSessionWithWhatTheSavesWrite() {
    String session = newSessionId();
    List<Message> transcript = conversation();
    List<CheckpointSave> saves =
        List.of(
            approvalSave(session, "exec-1", 1, 1_000L, ApprovalStatus.PENDING),
            approvalSave(session, "exec-1", 1, 1_000L, ApprovalStatus.APPROVED),
            save(
                session,
                "exec-1",
                1,
                2,
                RunStatus.FINISHED,
                FinishReason.STOP,
                2,
                transcript.subList(2, 4),
                new Usage(30, 3),
                3_000L));
    saves.forEach(store::saveCheckpoint);
    StoredSession live = store.session(session).orElseThrow();
    List<StoredEntry> liveHistory = store.history(session, 0);
    List<ApprovalRecord> liveApprovals = store.approvals(session, false);

    // Damage: a gap in the transcript, a stray entry, a lost approval decision.
    store.delete(session, false);
    store.saveCheckpoint(saves.get(2));
    store.saveCheckpoint(
        save(session, "exec-1", 1, 9, RunStatus.FAILED, null, 4, List.of(), Usage.ZERO, 9_000L));

    store.rebuild(session, saves);

    assertThat(store.session(session)).contains(live);
    assertThat(store.history(session, 0)).isEqualTo(liveHistory);
    assertThat(store.approvals(session, false)).isEqualTo(liveApprovals);
    assertThat(store.readMessages(session, 4)).containsExactlyElementsOf(transcript);

    store.rebuild(session, List.of());
    assertThat(store.session(session)).isEmpty();
    assertThat(store.history(session, 0)).isEmpty();
  }

  @Test
  void rebuildKeepsAForksCopiedPrefix_andRefusesWhenItIsMissing() {
    String session = newSessionId();
    List<Message> transcript = conversation();
    // What a fork copies: the parent's transcript up to the entry it forks from.
    store.saveCheckpoint(
        save(
            session,
            "fork-exec",
            1,
            1,
            RunStatus.IN_PROGRESS,
            FinishReason.TOOL_CALLS,
            0,
            transcript.subList(0, 2),
            new Usage(1, 1),
            1_000L));
    // What the fork workflow saves itself.
    CheckpointSave own =
        save(
            session,
            "fork-exec",
            1,
            2,
            RunStatus.FINISHED,
            FinishReason.STOP,
            2,
            transcript.subList(2, 4),
            new Usage(2, 2),
            2_000L);
    store.saveCheckpoint(own);
    List<StoredEntry> liveHistory = store.history(session, 0);

    store.rebuild(session, List.of(own));

    assertThat(store.history(session, 0)).isEqualTo(liveHistory);
    assertThat(store.readMessages(session, 4)).containsExactlyElementsOf(transcript);

    String broken = newSessionId();
    store.saveCheckpoint(
        save(
            broken,
            "fork-exec",
            1,
            0,
            RunStatus.IN_PROGRESS,
            null,
            0,
            transcript.subList(0, 1),
            Usage.ZERO,
            1_000L));
    CheckpointSave startsAtTwo =
        save(
            broken,
            "fork-exec",
            1,
            2,
            RunStatus.FINISHED,
            FinishReason.STOP,
            2,
            transcript.subList(2, 4),
            Usage.ZERO,
            2_000L);
    assertThatThrownBy(() -> store.rebuild(broken, List.of(startsAtTwo)))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("message 2");
    // Nothing changed.
    assertThat(store.history(broken, 0)).extracting(StoredEntry::step).containsExactly(0);
    assertThat(store.readMessages(broken, 1)).containsExactly(transcript.get(0));

    assertThatThrownBy(() -> store.rebuild(newSessionId(), List.of(own)))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining(session);
  }

  @Test
  void rebuildAppliesTheHistoryLimitLikeLiveSaves() throws Exception {
    CheckpointStore limited = storeWithHistoryLimit(2);
    String session = newSessionId();
    List<CheckpointSave> saves = new ArrayList<>();
    for (int step = 0; step < 5; step++) {
      saves.add(
          save(
              session,
              "exec-1",
              1,
              step,
              RunStatus.IN_PROGRESS,
              null,
              step,
              List.of(numbered(session, step)),
              Usage.ZERO,
              1_000L + step));
    }
    saves.forEach(limited::saveCheckpoint);
    List<StoredEntry> live = limited.history(session, 0);

    limited.rebuild(session, saves);

    assertThat(limited.history(session, 0))
        .isEqualTo(live)
        .extracting(StoredEntry::step)
        .containsExactly(4, 3);
    assertThat(limited.readMessages(session, 5)).hasSize(5);
  }

  /**
   * A save at step 1 of run {@code run} that carries approval {@code <session>/approval-<run>}
   * requested at {@code requestedAt}, in {@code status}, with the first two messages.
   */
  protected static CheckpointSave approvalSave(
      String session, String execution, int run, long requestedAt, ApprovalStatus status) {
    List<Message> transcript = conversation();
    Approval approval =
        new Approval(
            session + "/approval-" + run,
            "call-1",
            "weather",
            JSON.createObjectNode().put("city", "Zürich"),
            requestedAt,
            requestedAt + 60_000L);
    boolean decided = !ApprovalStatus.PENDING.equals(status);
    ApprovalRecord record =
        new ApprovalRecord(
            approval,
            run,
            1,
            status,
            decided ? requestedAt + 10 : 0,
            decided ? "ops" : null,
            decided ? "fine" : null,
            0);
    return new CheckpointSave(
        session,
        execution,
        "helper",
        run,
        1,
        decided ? RunStatus.IN_PROGRESS : RunStatus.AWAITING_APPROVAL,
        FinishReason.AWAITING_APPROVAL,
        0,
        transcript.subList(0, 2),
        Usage.ZERO,
        "fp-1",
        decided ? requestedAt + 10 : requestedAt,
        List.of(record),
        null,
        null,
        null);
  }

  protected static String newSessionId() {
    return "session-" + UUID.randomUUID();
  }

  /** A user question, a tool call, its result and the answer. */
  protected static List<Message> conversation() {
    ObjectNode arguments = JSON.createObjectNode().put("city", "Zürich");
    ToolCall call = new ToolCall("call-1", "weather", arguments);
    ObjectNode result = JSON.createObjectNode().put("celsius", 21.5);
    result.putArray("hours").add(1).add(2);
    return List.of(
        Message.user("What's the weather in Zürich? \"quotes\" and 'apostrophes'"),
        Message.assistant(null, List.of(call)),
        Message.toolResult(call, result),
        Message.assistant("It is 21.5 °C.", null));
  }

  private static Message numbered(String session, int seq) {
    return Message.user(session + " #" + seq);
  }

  protected static CheckpointSave save(
      String session,
      String execution,
      int run,
      int step,
      RunStatus status,
      String finishReason,
      int firstSeq,
      List<Message> messages) {
    return save(
        session, execution, run, step, status, finishReason, firstSeq, messages, Usage.ZERO, 500L);
  }

  protected static CheckpointSave save(
      String session,
      String execution,
      int run,
      int step,
      RunStatus status,
      String finishReason,
      int firstSeq,
      List<Message> messages,
      Usage usage,
      long savedAt) {
    return new CheckpointSave(
        session,
        execution,
        "helper",
        run,
        step,
        status,
        finishReason,
        firstSeq,
        messages,
        usage,
        "fp-1",
        savedAt,
        List.of(),
        null,
        null,
        null);
  }
}
