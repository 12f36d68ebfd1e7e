package io.durableagents.activities.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.workflow.Message;
import io.durableagents.workflow.TranscriptHash;
import io.durableagents.workflow.Usage;
import io.durableagents.workflow.activity.CheckpointSave;
import io.durableagents.workflow.activity.ModelTurnRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TranscriptCacheTest {
  private final TranscriptCache cache = new TranscriptCache(10);

  /** The request of a turn after {@code stored} messages, with these saves folded in. */
  private static ModelTurnRequest turn(
      String session, List<Message> stored, List<CheckpointSave> saves, List<Message> fresh) {
    List<Message> all = new ArrayList<>(stored);
    all.addAll(fresh);
    return new ModelTurnRequest(
        session, "agent", 1, 2, 1, stored.size(), fresh, null, saves, TranscriptHash.of(all));
  }

  private static CheckpointSave save(String session, int firstSeq, List<Message> messages) {
    return new CheckpointSave(
        session, "exec", "agent", 1, 1, "in-progress", null, firstSeq, messages, Usage.ZERO, null, 1, List.of());
  }

  @Test
  void theNextTurnOfASession_isServedWhenTheFoldedSavesExtendTheRememberedTranscript() {
    Message hello = Message.user("hello");
    Message answer = Message.assistant("hi", List.of());
    Message more = Message.user("more");
    ModelTurnRequest first = turn("s", List.of(), List.of(), List.of(hello));
    assertThat(cache.stored(first)).isNull();
    cache.remember(first, List.of());

    // The first turn's input and answer are saved with the second turn, which adds "more".
    ModelTurnRequest second =
        turn("s", List.of(hello, answer), List.of(save("s", 0, List.of(hello, answer))), List.of(more));
    assertThat(cache.stored(second)).containsExactly(hello, answer);
    cache.remember(second, List.of(hello, answer));

    // A save that starts after the end of what this worker saw leaves a gap: read the store.
    Message later = Message.assistant("later", List.of());
    ModelTurnRequest gap =
        turn("s", List.of(hello, answer, more, answer, later), List.of(save("s", 4, List.of(later))), List.of());
    assertThat(cache.stored(gap)).isNull();
  }

  @Test
  void aTranscriptThatDiffersFromTheWorkflowsChain_isNeverServed() {
    Message hello = Message.user("hello");
    cache.remember(turn("s", List.of(), List.of(), List.of(hello)), List.of());

    // Same counts, other content (a session id reused after a delete): the chains disagree.
    Message other = Message.user("something else");
    Message answer = Message.assistant("hi", List.of());
    ModelTurnRequest reused =
        turn("s", List.of(other, answer), List.of(save("s", 1, List.of(answer))), List.of());
    assertThat(cache.stored(reused)).isNull();
  }

  @Test
  void aStoredTranscriptThatDisagreesWithTheRequestsChain_isNotRemembered() {
    Message hello = Message.user("hello");
    Message answer = Message.assistant("hi", List.of());
    // The store returned other content than the workflow hashed (a damaged projection).
    ModelTurnRequest request = turn("s", List.of(hello, answer), List.of(), List.of());
    cache.remember(request, List.of(hello, Message.assistant("tampered", List.of())));
    assertThat(cache.sessions()).isZero();
    cache.remember(request, List.of(hello, answer));
    assertThat(cache.sessions()).isEqualTo(1);
  }

  @Test
  void aGapBetweenTheRememberedTranscriptAndTheStoredCount_misses() {
    Message hello = Message.user("hello");
    Message answer = Message.assistant("hi", List.of());
    cache.remember(turn("s", List.of(), List.of(), List.of(hello)), List.of());

    // Another worker saved the answer: this turn folds no save, and the cache lacks message 1.
    assertThat(cache.stored(turn("s", List.of(hello, answer), List.of(), List.of()))).isNull();
    // Requests of older workflow code carry no hash: never served.
    assertThat(
            cache.stored(
                new ModelTurnRequest("s", "agent", 1, 2, 1, 1, List.of(), null, null, null)))
        .isNull();
  }

  @Test
  void theLeastRecentlyUsedSessionsAreDropped_toStayWithinTheMessageBound() {
    for (String session : List.of("a", "b", "c")) {
      List<Message> transcript = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        transcript.add(Message.user(session + i));
      }
      cache.remember(turn(session, transcript, List.of(), List.of()), transcript);
    }
    assertThat(cache.sessions()).isEqualTo(2); // 12 messages > 10: "a" went first

    List<Message> tooLong = new ArrayList<>();
    for (int i = 0; i < 11; i++) {
      tooLong.add(Message.user("x" + i));
    }
    cache.remember(turn("b", tooLong, List.of(), List.of()), tooLong);
    assertThat(cache.sessions()).isEqualTo(1); // a transcript over the bound is not kept at all
  }
}
