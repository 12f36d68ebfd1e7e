package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.durableagents.session.internal.ApprovalRecord;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.Limits;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.Decision;
import io.temporal.client.WorkflowUpdateException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Decisions over the limits (approval id, note, decidedBy): the update {@code approve} refuses
 * them, the signal {@code decide} drops them; neither is ever recorded, and the approval still
 * waits for a valid decision.
 */
class DecisionLimitsTest extends SessionKitTest {
  private static final String PAY =
      "{'turns':[{'toolCalls':[{'name':'pay','arguments':{'amount':500}}]},{'text':'paid'}]}";

  private RunResult startPaused(String sessionId) {
    kit = new SessionTestKit(dir, Scripts.of(PAY), 10);
    RunResult paused = kit.send(sessionId, "pay");
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    return paused;
  }

  @Test
  void signalledDecisionsOverALimit_areDropped_soTheNextValidOneStands() {
    RunResult paused = startPaused("big-signal");
    String id = paused.approval().approvalId();

    // Signals apply in order and the first decision stands: had any of these been recorded, the
    // call would have been rejected.
    kit.session("big-signal")
        .decide(new Decision(id, false, "n".repeat(Limits.NOTE_CHARS + 1), "eve"));
    kit.session("big-signal")
        .decide(new Decision(id, false, "no", "e".repeat(Limits.DECIDED_BY_CHARS + 1)));
    kit.session("big-signal")
        .decide(new Decision(id + "x".repeat(Limits.APPROVAL_ID_CHARS), false, "no", "eve"));
    kit.session("big-signal").decide(new Decision(id, true, "ok", "alice"));
    RunResult done = kit.attach("big-signal");

    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.toolCalls().get(0).result().get("paid").asInt()).isEqualTo(500);
    ApprovalRecord row = kit.store.approvals("big-signal", false).get(0);
    assertThat(row.status()).isEqualTo(ApprovalStatus.APPROVED);
    assertThat(row.decidedBy()).isEqualTo("alice");
    assertThat(row.note()).isEqualTo("ok");
  }

  @Test
  void aSignalledDecisionWithoutApproved_isDropped_notReadAsARejection() {
    RunResult paused = startPaused("no-approved");
    String id = paused.approval().approvalId();

    kit.client
        .newUntypedWorkflowStub("no-approved")
        .signal("decide", Map.of("approvalId", id, "note", "?"));
    kit.session("no-approved").decide(new Decision(id, true, null, "alice"));

    RunResult done = kit.attach("no-approved");
    assertThat(done.toolCalls().get(0).result().get("paid").asInt()).isEqualTo(500);
  }

  @Test
  void anApprovalUpdateOverALimit_isRefusedWithInvalidDecision_andTheApprovalStillWaits() {
    RunResult paused = startPaused("big-update");
    String id = paused.approval().approvalId();

    assertThatThrownBy(
            () ->
                kit.session("big-update")
                    .approve(new Decision(id, false, "n".repeat(Limits.NOTE_CHARS + 1), "eve")))
        .isInstanceOf(WorkflowUpdateException.class)
        .satisfies(
            e -> {
              assertThat(ApprovalWorkflowTest.rejection(e).type())
                  .isEqualTo(FailureTypes.INVALID_DECISION);
              assertThat(ApprovalWorkflowTest.rejection(e).message())
                  .contains(
                      "note is "
                          + (Limits.NOTE_CHARS + 1)
                          + " characters, over the limit of "
                          + Limits.NOTE_CHARS);
            });
    assertThatThrownBy(
            () ->
                kit.session("big-update")
                    .approve(new Decision(id, true, null, "e".repeat(Limits.DECIDED_BY_CHARS + 1))))
        .satisfies(
            e ->
                assertThat(ApprovalWorkflowTest.rejection(e).type())
                    .isEqualTo(FailureTypes.INVALID_DECISION));

    assertThat(kit.session("big-update").status().approval().approvalId()).isEqualTo(id);
    assertThat(kit.store.approvals("big-update", true)).hasSize(1);
    // A note of exactly the limit is a valid decision, kept whole.
    String longestNote = "n".repeat(Limits.NOTE_CHARS);
    kit.session("big-update").approve(new Decision(id, false, longestNote, "alice"));
    RunResult done = kit.attach("big-update");
    assertThat(done.toolCalls().get(0).result().get("note").asText()).isEqualTo(longestNote);
    assertThat(kit.store.approvals("big-update", false).get(0).note()).isEqualTo(longestNote);
  }
}
