package io.durableagents.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.workflow.FinishReason;
import io.durableagents.workflow.Message;
import io.durableagents.workflow.RunStatus;
import io.durableagents.workflow.ToolCall;
import io.durableagents.workflow.Usage;
import io.durableagents.workflow.activity.CheckpointSave;
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
 * What every {@link AgentStore} must do, whatever the database. A subclass per database opens the
 * store; every test uses session ids of its own, so a shared database is fine.
 */
abstract class AgentStoreContract {
  private static final ObjectMapper JSON = new ObjectMapper();

  protected AgentStore store;

  /** A store on a migrated database; the contract closes it after each test. */
  protected abstract AgentStore openStore() throws Exception;

  @BeforeEach
  void openTheStore() throws Exception {
    store = openStore();
  }

  @AfterEach
  void closeTheStore() {
    if (store != null) {
      store.close();
    }
  }

  @Test
  void savesInOrderAndReadsBack() {
    String session = newSessionId();
    List<Message> transcript = conversation();

    store.saveCheckpoint(
        save(session, "exec-1", 1, 0, RunStatus.IN_PROGRESS, null, 0, transcript.subList(0, 1)));
    store.saveCheckpoint(
        save(session, "exec-1", 1, 1, RunStatus.IN_PROGRESS, FinishReason.TOOL_CALLS, 1,
            transcript.subList(1, 2), new Usage(10, 5), 1_000L));
    store.saveCheckpoint(
        save(session, "exec-1", 1, 2, RunStatus.FINISHED, FinishReason.STOP, 2,
            transcript.subList(2, 4), new Usage(25, 12), 2_000L));

    assertThat(store.readMessages(session, 4)).containsExactlyElementsOf(transcript);

    SessionRecord record = store.session(session).orElseThrow();
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

    List<CheckpointEntry> history = store.history(session, 10);
    assertThat(history).extracting(CheckpointEntry::step).containsExactly(2, 1, 0);
    assertThat(history.get(0))
        .isEqualTo(
            new CheckpointEntry(
                2, 1, 2_000L, RunStatus.FINISHED, FinishReason.STOP, 4, new Usage(25, 12), "fp-1"));
    assertThat(history.get(2).finishReason()).isNull();
    assertThat(store.history(session, 2)).extracting(CheckpointEntry::step).containsExactly(2, 1);
    assertThat(store.history(session, 0)).hasSize(3);
  }

  @Test
  void aRetriedSaveIsIdempotent() {
    String session = newSessionId();
    List<Message> transcript = conversation();
    CheckpointSave first = save(session, "exec-1", 1, 0, RunStatus.IN_PROGRESS, null, 0,
        transcript.subList(0, 2));
    store.saveCheckpoint(first);
    SessionRecord before = store.session(session).orElseThrow();

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
    store.saveCheckpoint(save(session, "exec-1", 1, 1, RunStatus.AWAITING_APPROVAL,
        FinishReason.TOOL_CALLS, 0, transcript.subList(0, 2), new Usage(3, 4), 1_000L));

    store.saveCheckpoint(save(session, "exec-1", 1, 1, RunStatus.CANCELLED, FinishReason.ERROR,
        0, transcript.subList(0, 2), new Usage(7, 8), 3_000L));

    assertThat(store.history(session, 0))
        .containsExactly(
            new CheckpointEntry(
                1, 1, 3_000L, RunStatus.CANCELLED, FinishReason.ERROR, 2, new Usage(7, 8), "fp-1"));
    SessionRecord record = store.session(session).orElseThrow();
    assertThat(record.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(record.usage()).isEqualTo(new Usage(7, 8));
    assertThat(record.updatedAt()).isEqualTo(3_000L);
    assertThat(record.createdAt()).isEqualTo(1_000L);
  }

  @Test
  void aLateSaveOfAnOlderStepDoesNotMoveTheSessionBackwards() {
    String session = newSessionId();
    List<Message> transcript = conversation();
    CheckpointSave step1 = save(session, "exec-1", 1, 1, RunStatus.IN_PROGRESS,
        FinishReason.TOOL_CALLS, 0, transcript.subList(0, 2), new Usage(10, 5), 1_000L);
    store.saveCheckpoint(step1);
    store.saveCheckpoint(save(session, "exec-1", 2, 3, RunStatus.FINISHED, FinishReason.STOP, 2,
        transcript.subList(2, 4), new Usage(30, 20), 2_000L));

    store.saveCheckpoint(step1);

    SessionRecord record = store.session(session).orElseThrow();
    assertThat(record.lastStep()).isEqualTo(3);
    assertThat(record.currentRun()).isEqualTo(2);
    assertThat(record.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(record.messageCount()).isEqualTo(4);
    assertThat(record.usage()).isEqualTo(new Usage(30, 20));
    assertThat(record.updatedAt()).isEqualTo(2_000L);
    assertThat(store.history(session, 0)).extracting(CheckpointEntry::step).containsExactly(3, 1);
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
  }

  @Test
  void aDifferentExecutionIdReplacesTheOldSession() {
    String session = newSessionId();
    List<Message> transcript = conversation();
    store.saveCheckpoint(
        save(session, "exec-old", 1, 0, RunStatus.IN_PROGRESS, null, 0, transcript.subList(0, 2)));
    store.saveCheckpoint(save(session, "exec-old", 1, 5, RunStatus.FINISHED, FinishReason.STOP,
        2, transcript.subList(2, 4), new Usage(50, 50), 5_000L));

    Message fresh = Message.user("a brand-new conversation");
    store.saveCheckpoint(save(session, "exec-new", 1, 0, RunStatus.IN_PROGRESS, null, 0,
        List.of(fresh), Usage.ZERO, 9_000L));

    SessionRecord record = store.session(session).orElseThrow();
    assertThat(record.executionId()).isEqualTo("exec-new");
    assertThat(record.lastStep()).isZero();
    assertThat(record.messageCount()).isEqualTo(1);
    assertThat(record.usage()).isEqualTo(Usage.ZERO);
    assertThat(record.createdAt()).isEqualTo(9_000L);
    assertThat(store.history(session, 0)).extracting(CheckpointEntry::step).containsExactly(0);
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
                store.saveCheckpoint(save(session, "exec-" + session, 1, step,
                    RunStatus.IN_PROGRESS, FinishReason.TOOL_CALLS, 2 * step,
                    List.of(numbered(session, 2 * step), numbered(session, 2 * step + 1)),
                    new Usage(step, step), 1_000L + step));
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
      SessionRecord record = store.session(session).orElseThrow();
      assertThat(record.lastStep()).isEqualTo(steps - 1);
      assertThat(record.messageCount()).isEqualTo(2 * steps);
      assertThat(store.history(session, 0)).hasSize(steps);
      List<Message> messages = store.readMessages(session, 2 * steps);
      for (int seq = 0; seq < messages.size(); seq++) {
        assertThat(messages.get(seq)).isEqualTo(numbered(session, seq));
      }
    }
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

  protected static CheckpointSave save(String session, String execution, int run, int step,
      String status, String finishReason, int firstSeq, List<Message> messages) {
    return save(session, execution, run, step, status, finishReason, firstSeq, messages,
        Usage.ZERO, 500L);
  }

  protected static CheckpointSave save(String session, String execution, int run, int step,
      String status, String finishReason, int firstSeq, List<Message> messages, Usage usage,
      long savedAt) {
    return new CheckpointSave(session, execution, "helper", run, step, status, finishReason,
        firstSeq, messages, usage, "fp-1", savedAt);
  }
}
