package io.durableagents.activities.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.conversation.Message;
import io.durableagents.conversation.Usage;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.internal.MessageSize;
import io.durableagents.workflow.internal.activity.ModelTurnRequest;
import io.durableagents.workflow.internal.activity.TurnSaves;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.durableagents.workflow.internal.wire.TranscriptHash;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class TranscriptCacheTest {
  private final TranscriptCache cache = new TranscriptCache(10_000);
  private final AtomicInteger storeReads = new AtomicInteger();

  private final Message hello = Message.user("hello");
  private final Message answer = Message.assistant("hi", List.of());
  private final Message more = Message.user("more");

  /** The request of a turn after {@code stored} messages, with these saves folded in. */
  private static ModelTurnRequest turn(
      String session, List<Message> stored, List<CheckpointSave> saves, List<Message> fresh) {
    return turn(session, "exec", stored, saves, fresh);
  }

  private static ModelTurnRequest turn(
      String session,
      String execution,
      List<Message> stored,
      List<CheckpointSave> saves,
      List<Message> fresh) {
    List<Message> all = new ArrayList<>(stored);
    all.addAll(fresh);
    return new ModelTurnRequest(
        session,
        "agent",
        1,
        2,
        1,
        stored.size(),
        fresh,
        TranscriptHash.of(all),
        execution,
        null,
        new TurnSaves.Write(saves));
  }

  private static CheckpointSave save(String session, int firstSeq, List<Message> messages) {
    return new CheckpointSave(
        session,
        "exec",
        "agent",
        1,
        1,
        RunStatus.IN_PROGRESS,
        null,
        firstSeq,
        messages,
        Usage.ZERO,
        null,
        1,
        List.of(),
        null,
        null,
        null);
  }

  /**
   * A turn that holds {@code saves}, or (with {@code heldSteps}) writes the held ones and then
   * them.
   */
  private static ModelTurnRequest holding(
      List<Message> stored, List<CheckpointSave> saves, List<Integer> heldSteps) {
    return new ModelTurnRequest(
        "s",
        "agent",
        1,
        2,
        1,
        stored.size(),
        List.of(),
        TranscriptHash.of(stored),
        "exec",
        null,
        heldSteps == null ? new TurnSaves.Hold(saves) : new TurnSaves.WriteHeld(heldSteps, saves));
  }

  private static CheckpointSave save(int step, int firstSeq, List<Message> messages) {
    return new CheckpointSave(
        "s",
        "exec",
        "agent",
        1,
        step,
        RunStatus.IN_PROGRESS,
        null,
        firstSeq,
        messages,
        Usage.ZERO,
        null,
        1,
        List.of(),
        null,
        null,
        null);
  }

  /** A store that holds {@code messages} and counts its reads. */
  private Supplier<List<Message>> store(List<Message> messages) {
    return () -> {
      storeReads.incrementAndGet();
      return messages;
    };
  }

  @Test
  void theNextTurnOfASession_isServedWhenTheFoldedSavesExtendWhatItSent() {
    ModelTurnRequest first = turn("s", List.of(), List.of(), List.of(hello));
    assertThat(cache.storedTranscript(first, store(List.of()))).isEmpty();
    assertThat(storeReads).hasValue(1);

    // The first turn's input and answer are saved with the second turn, which adds "more".
    ModelTurnRequest second =
        turn(
            "s",
            List.of(hello, answer),
            List.of(save("s", 0, List.of(hello, answer))),
            List.of(more));
    assertThat(cache.storedTranscript(second, store(List.of()))).containsExactly(hello, answer);
    assertThat(storeReads).hasValue(1);

    Message later = Message.assistant("later", List.of());
    ModelTurnRequest third =
        turn(
            "s",
            List.of(hello, answer, more, later),
            List.of(save("s", 2, List.of(more, later))),
            List.of());
    assertThat(cache.storedTranscript(third, store(List.of())))
        .containsExactly(hello, answer, more, later);
    assertThat(storeReads).hasValue(1);
  }

  @Test
  void theSavesATurnHeld_areGivenToTheTurnThatWritesExactlyThose_once() {
    Supplier<List<Message>> unread =
        () -> {
          throw new AssertionError("a held turn never reads the store");
        };
    cache.storedTranscript(turn("s", List.of(), List.of(), List.of(hello)), store(List.of()));
    CheckpointSave step1 = save(1, 0, List.of(hello, answer));
    CheckpointSave step2 = save(2, 2, List.of(more));
    cache.storedTranscript(
        holding(List.of(hello, answer, more), List.of(step1, step2), null), unread);
    // A retried attempt of the same turn carries the same steps again: they are not doubled.
    cache.storedTranscript(
        holding(List.of(hello, answer, more), List.of(step1, step2), null), unread);

    Message later = Message.assistant("later", List.of());
    CheckpointSave step3 = save(3, 3, List.of(later));
    List<Message> all = List.of(hello, answer, more, later);
    assertThat(cache.heldSaves(holding(all, List.of(step3), List.of(1)))).isNull();
    assertThat(cache.heldSaves(holding(all, List.of(step3), List.of(1, 2, 3)))).isNull();
    assertThat(cache.heldSaves(holding(all, List.of(step3), List.of(1, 2))))
        .containsExactly(step1, step2);

    // Once that turn has run, nothing is held any more.
    assertThat(cache.storedTranscript(holding(all, List.of(step3), List.of(1, 2)), unread))
        .containsExactlyElementsOf(all);
    assertThat(cache.heldSaves(holding(all, List.of(), List.of(1, 2)))).isNull();
    assertThat(storeReads).hasValue(1);
  }

  @Test
  void aTurnThatDoesNotWriteHeldSaves_orOfAnotherExecution_getsNone() {
    cache.storedTranscript(turn("s", List.of(), List.of(), List.of(hello)), store(List.of()));
    CheckpointSave step1 = save(1, 0, List.of(hello, answer));
    cache.storedTranscript(holding(List.of(hello, answer), List.of(step1), null), store(List.of()));

    assertThat(cache.heldSaves(holding(List.of(hello, answer), List.of(), null))).isNull();
    ModelTurnRequest otherExecution =
        new ModelTurnRequest(
            "s",
            "agent",
            1,
            2,
            1,
            2,
            List.of(),
            TranscriptHash.of(List.of(hello, answer)),
            "exec-2",
            null,
            new TurnSaves.WriteHeld(List.of(1), List.of()));
    assertThat(cache.heldSaves(otherExecution)).isNull();
    assertThat(cache.heldSaves(holding(List.of(hello, answer), List.of(), List.of(1))))
        .containsExactly(step1);
  }

  @Test
  void aGap_orAnotherExecutionOfTheSessionId_readsTheStore() {
    cache.storedTranscript(turn("s", List.of(), List.of(), List.of(hello)), store(List.of()));

    // Another worker saved the answer: this turn folds no save, and the cache lacks message 1.
    List<Message> stored = List.of(hello, answer);
    assertThat(cache.storedTranscript(turn("s", stored, List.of(), List.of()), store(stored)))
        .containsExactly(hello, answer);
    assertThat(storeReads).hasValue(2);

    // The session id reused by another workflow (after a delete), at the same counts.
    Message other = Message.user("something else");
    List<Message> reused = List.of(other, answer);
    ModelTurnRequest ofAnotherWorkflow =
        turn("s", "another-exec", reused, List.of(save("s", 1, List.of(answer))), List.of());
    assertThat(cache.storedTranscript(ofAnotherWorkflow, store(reused)))
        .containsExactly(other, answer);
    assertThat(storeReads).hasValue(3);
  }

  @Test
  void aForkTakesThePrefixItRemembers_ofTheSameExecutionOnly() {
    cache.storedTranscript(turn("s", List.of(), List.of(), List.of(hello)), store(List.of()));
    cache.storedTranscript(
        turn(
            "s",
            List.of(hello, answer),
            List.of(save("s", 0, List.of(hello, answer))),
            List.of(more)),
        store(List.of()));

    assertThat(cache.prefix("s", "exec", 2)).containsExactly(hello, answer);
    assertThat(cache.prefix("s", "exec", 9)).containsExactly(hello, answer, more);
    assertThat(cache.prefix("s", "another-exec", 2)).isEmpty();
    assertThat(cache.prefix("unknown", "exec", 2)).isEmpty();
  }

  @Test
  void aStoreThatDisagreesWithTheWorkflowsChain_isReturnedButNeverRemembered() {
    List<Message> stored = List.of(hello, answer);
    List<Message> tampered = List.of(hello, Message.assistant("tampered", List.of()));
    ModelTurnRequest request = turn("s", stored, List.of(), List.of());
    assertThat(cache.storedTranscript(request, store(tampered))).isEqualTo(tampered);
    assertThat(cache.sessions()).isZero();
    // A request without a hash (e.g. built by hand) is always read, never remembered.
    cache.storedTranscript(
        new ModelTurnRequest("s", "agent", 1, 2, 1, 2, List.of(), null, null, null, null),
        store(stored));
    assertThat(cache.sessions()).isZero();
    assertThat(storeReads).hasValue(2);
  }

  @Test
  void theLeastRecentlyUsedSessionsAreDropped_toStayWithinTheCharacterBound() {
    String text = "x".repeat(1_000); // about 1,064 characters a message
    for (String session : List.of("a", "b", "c")) {
      List<Message> transcript = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        transcript.add(Message.user(text));
      }
      cache.storedTranscript(turn(session, transcript, List.of(), List.of()), store(transcript));
    }
    assertThat(cache.sessions()).isEqualTo(2); // 3 x 4,256 > 10,000: "a" went first

    // Used again (served without a read), "b" is the most recent: "c" goes when "d" comes.
    List<Message> four =
        List.of(Message.user(text), Message.user(text), Message.user(text), Message.user(text));
    cache.storedTranscript(turn("b", four, List.of(), List.of()), store(four));
    assertThat(storeReads).hasValue(3);
    cache.storedTranscript(turn("d", four, List.of(), List.of()), store(four));
    cache.storedTranscript(turn("b", four, List.of(), List.of()), store(four));
    assertThat(storeReads).hasValue(4); // "b" still held
    cache.storedTranscript(turn("c", four, List.of(), List.of()), store(four));
    assertThat(storeReads).hasValue(5); // "c" was not

    List<Message> tooLong = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      tooLong.add(Message.user(text));
    }
    cache.storedTranscript(turn("b", tooLong, List.of(), List.of()), store(tooLong));
    assertThat(cache.sessions()).isEqualTo(1); // a transcript over the bound is not kept at all
  }

  @Test
  void aMessagesSize_countsItsText_arguments_andResult() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    Message small = Message.user("hi");
    Message big =
        Message.toolResult(
            new io.durableagents.conversation.ToolCall(
                "call_1", "search", json.readTree("{\"q\":\"rain\"}")),
            json.readTree("{\"hits\":[\"" + "y".repeat(5_000) + "\"]}"));
    assertThat(MessageSize.chars(small)).isBetween(2, 100);
    assertThat(MessageSize.chars(big)).isBetween(5_000, 5_200);
  }
}
