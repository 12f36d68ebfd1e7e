package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.conversation.Message;
import io.durableagents.projection.internal.StoredEntry;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.CloseRequest;
import io.durableagents.workflow.internal.wire.ForkOutcome;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A reset: a closed session's new workflow under the same id goes on from one of its history
 * entries, the later entries kept in the store and marked superseded by the reset, with the
 * messages their transcripts need; a reset to an entry the store does not keep is refused and the
 * session goes on from its newest entry. A delete that keeps the history retires its entries the
 * same way, so that a new session under the id never writes over them.
 */
class SessionResetTest extends SessionKitTest {
  private static final String ANSWERS =
      "{'turns':[{'text':'one'},{'text':'two'},{'text':'three'}]}";

  @Test
  void aReset_goesOnFromTheEntry_andMarksTheLaterEntriesSuperseded() throws Exception {
    kit = new SessionTestKit(dir, Scripts.of(ANSWERS), 10);
    kit.send("reset-1", "hello");
    RunResult second = kit.send("reset-1", "more");
    int step = newestStepWithMessages("reset-1", 2);
    List<Integer> later = stepsAfter(kit.store.history("reset-1", 0), step);
    assertThat(later).isNotEmpty();
    kit.session("reset-1").close(CloseRequest.close(false));

    ForkOutcome outcome = kit.resetPrepared("reset-1", step);

    assertThat(outcome.isRefused()).as(outcome.refusal()).isFalse();
    assertThat(outcome.status().resetTo()).isEqualTo(step);
    assertThat(outcome.status().messageCount()).isEqualTo(2);
    assertThat(outcome.status().lifecycle()).isEqualTo(SessionLifecycle.OPEN);
    assertThat(kit.store.session("reset-1").orElseThrow().resetTo()).isEqualTo(step);
    assertSupersededExactly("reset-1", later);
    String resetId = kit.store.history("reset-1", 1).get(0).supersededBy();
    assertThat(resetId).startsWith("reset to step " + step + " at ");
    // The superseded line's transcript is kept aside: "hello", "one", "more", "two".
    assertThat(supersededTexts("reset-1", resetId)).containsExactly("hello", "one", "more", "two");

    // The model is asked with the entry's transcript: its second answer comes again.
    RunResult next = kit.send("reset-1", "again");

    assertThat(next.text()).isEqualTo("two");
    assertThat(next.run()).isEqualTo(second.run() + 1);
    assertThat(next.checkpointStep()).isGreaterThan(later.get(later.size() - 1));
    assertThat(kit.store.readMessages("reset-1", 4))
        .extracting(Message::text)
        .containsExactly("hello", "one", "again", "two");
    assertSupersededExactly("reset-1", later);
    assertThat(kit.session("reset-1").status().resetTo()).isEqualTo(step);
  }

  @Test
  void aResetToAnEntryTheStoreDoesNotKeep_isRefused_andTheSessionGoesOnFromItsNewest() {
    kit = new SessionTestKit(dir, Scripts.of(ANSWERS), 10);
    kit.send("reset-2", "hello");
    int newest = kit.store.session("reset-2").orElseThrow().lastStep();
    kit.session("reset-2").close(CloseRequest.close(false));

    ForkOutcome outcome = kit.resetPrepared("reset-2", 99);

    assertThat(outcome.refusal())
        .isEqualTo("Session 'reset-2' has no history entry at step 99 on its current line.");
    assertThat(kit.store.history("reset-2", 0)).allMatch(entry -> entry.supersededBy() == null);
    assertThat(kit.store.session("reset-2").orElseThrow().lastStep()).isEqualTo(newest);
    RunResult next = kit.send("reset-2", "again");
    assertThat(next.text()).isEqualTo("two");
    assertThat(kit.session("reset-2").status().resetTo()).isNull();
  }

  @Test
  void aResetSessionClosedBeforeItsNextRun_startsAgainFromTheResetEntry() {
    resetToTheFirstAnswer("reset-3");
    // Closed again before the reset line has an entry of its own: the newest entry in the store is
    // one the reset superseded, whose messages are no longer the session's.
    kit.session("reset-3").close(CloseRequest.close(false));

    RunResult next = kit.send("reset-3", "again");

    assertThat(next.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(next.text()).isEqualTo("two");
    assertThat(kit.store.readMessages("reset-3", 4))
        .extracting(Message::text)
        .containsExactly("hello", "one", "again", "two");
  }

  @Test
  void aResetToAnEntryAnotherResetSuperseded_isRefused_andTheSessionStaysOnTheOthersLine() {
    int step = resetToTheFirstAnswer("reset-4");
    int newest = kit.store.history("reset-4", 1).get(0).step();
    kit.session("reset-4").close(CloseRequest.close(false));

    // A second reset, decided before the first one superseded its entry.
    ForkOutcome second = kit.resetPrepared("reset-4", newest);

    assertThat(second.refusal())
        .isEqualTo(
            "Session 'reset-4' has no history entry at step " + newest + " on its current line.");
    assertThat(kit.store.session("reset-4").orElseThrow().resetTo()).isEqualTo(step);
    RunResult next = kit.send("reset-4", "again");
    assertThat(next.text()).isEqualTo("two");
    assertThat(kit.store.readMessages("reset-4", 4))
        .extracting(Message::text)
        .containsExactly("hello", "one", "again", "two");
  }

  @Test
  void aNewSessionUnderTheIdOfOneDeletedWithItsHistoryKept_neverWritesOverThatHistory()
      throws Exception {
    kit = new SessionTestKit(dir, Scripts.of(ANSWERS), 10);
    kit.send("kept-1", "first conversation");
    kit.send("kept-1", "more");
    List<StoredEntry> before = kit.store.history("kept-1", 0);
    kit.session("kept-1").close(CloseRequest.delete(false, true));

    RunResult next = kit.send("kept-1", "second life");

    // A new session: its own transcript, its runs and entries numbered after the kept ones.
    assertThat(next.text()).isEqualTo("one");
    assertThat(next.messageCount()).isEqualTo(2);
    assertThat(next.run()).isEqualTo(before.get(0).run() + 1);
    assertThat(kit.store.readMessages("kept-1", 2))
        .extracting(Message::text)
        .containsExactly("second life", "one");
    List<StoredEntry> after = kit.store.history("kept-1", 0);
    assertThat(after).hasSizeGreaterThan(before.size());
    List<StoredEntry> kept = after.subList(after.size() - before.size(), after.size());
    assertThat(kept).extracting(StoredEntry::step).isEqualTo(steps(before));
    assertThat(kept).extracting(StoredEntry::messageCount).isEqualTo(counts(before));
    String retiredBy = kept.get(0).supersededBy();
    assertThat(retiredBy).startsWith("delete with kept history at ");
    assertThat(kept).allMatch(entry -> retiredBy.equals(entry.supersededBy()));
    assertThat(supersededTexts("kept-1", retiredBy))
        .containsExactly("first conversation", "one", "more", "two");
    assertThat(after.subList(0, after.size() - before.size()))
        .allMatch(entry -> entry.supersededBy() == null && entry.step() > before.get(0).step());
  }

  private static List<Integer> steps(List<StoredEntry> entries) {
    return entries.stream().map(StoredEntry::step).toList();
  }

  private static List<Integer> counts(List<StoredEntry> entries) {
    return entries.stream().map(StoredEntry::messageCount).toList();
  }

  /**
   * Two runs on {@code sessionId} ("hello", "more"), then a reset to the entry after the first
   * answer; answers that entry's step.
   */
  private int resetToTheFirstAnswer(String sessionId) {
    kit = new SessionTestKit(dir, Scripts.of(ANSWERS), 10);
    kit.send(sessionId, "hello");
    kit.send(sessionId, "more");
    int step = newestStepWithMessages(sessionId, 2);
    kit.session(sessionId).close(CloseRequest.close(false));
    assertThat(kit.resetPrepared(sessionId, step).isRefused()).isFalse();
    return step;
  }

  private void assertSupersededExactly(String sessionId, List<Integer> steps) {
    for (StoredEntry entry : kit.store.history(sessionId, 0)) {
      assertThat(entry.supersededBy() != null)
          .as("entry %s superseded", entry.step())
          .isEqualTo(steps.contains(entry.step()));
    }
  }

  private int newestStepWithMessages(String sessionId, int messages) {
    return kit.store.history(sessionId, 0).stream()
        .filter(entry -> entry.messageCount() == messages)
        .mapToInt(StoredEntry::step)
        .max()
        .orElseThrow();
  }

  private static List<Integer> stepsAfter(List<StoredEntry> history, int step) {
    return history.stream().map(StoredEntry::step).filter(s -> s > step).sorted().toList();
  }

  private List<String> supersededTexts(String sessionId, String resetId) throws Exception {
    List<String> texts = new java.util.ArrayList<>();
    try (Connection connection =
            DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("projection.db"));
        PreparedStatement select =
            connection.prepareStatement(
                "SELECT body FROM agent_superseded_messages WHERE session_id = ?"
                    + " AND superseded_by = ? ORDER BY seq")) {
      select.setString(1, sessionId);
      select.setString(2, resetId);
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          texts.add(
              io.durableagents.projection.internal.Rows.message(sessionId, 0, rows.getString(1))
                  .text());
        }
      }
    }
    return texts;
  }
}
