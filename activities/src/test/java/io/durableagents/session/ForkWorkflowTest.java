package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.projection.internal.StoredEntry;
import io.durableagents.projection.internal.StoredSession;
import io.durableagents.store.internal.ProjectionRebuilder;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.ToolCallRecord;
import io.durableagents.workflow.Trajectories;
import io.durableagents.workflow.internal.wire.Decision;
import io.durableagents.workflow.internal.wire.ForkOutcome;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Fork from a kept history entry: a new session, the source untouched. */
class ForkWorkflowTest extends SessionKitTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Step 1: the model turn with two calls; step 2: their results; step 3: the answer. */
  private static final String TWO_CALLS =
      "{'turns':[{'text':'checking','toolCalls':[{'name':'echo','arguments':{'text':'sun'}},"
          + "{'name':'add','arguments':{'a':1,'b':2}}],'usage':{'inputTokens':10,'outputTokens':5}},"
          + "{'text':'answer','usage':{'inputTokens':20,'outputTokens':3}},"
          + "{'text':'more','usage':{'inputTokens':1,'outputTokens':1}}]}";

  private RunResult fork(String source, int step, ForkPatch patch, String forkId) {
    return kit.fork(source, step, patch, forkId);
  }

  private String snapshot(String session) throws Exception {
    List<StoredEntry> history = kit.store.history(session, 0);
    int count = kit.store.session(session).orElseThrow().messageCount();
    return JSON.writeValueAsString(history)
        + JSON.writeValueAsString(kit.store.readMessages(session, count));
  }

  @Test
  void forkAfterTheBatch_withAReplacedToolResult_rerunsFromThere_andTheSourceIsUnchanged()
      throws Exception {
    List<List<Message>> modelSaw = new java.util.concurrent.CopyOnWriteArrayList<>();
    io.durableagents.model.ModelProvider scripted = Scripts.of(TWO_CALLS);
    kit =
        new SessionTestKit(
            dir,
            (request, stream) -> {
              modelSaw.add(request.messages());
              return scripted.generate(request, stream);
            },
            10);
    RunResult source = kit.send("src-1", "go");
    assertThat(source.text()).isEqualTo("answer");
    String before = snapshot("src-1");

    RunResult forked =
        fork(
            "src-1",
            2,
            new ForkPatch(
                null,
                null,
                List.of(
                    new ForkPatch.ToolResultPatch(
                        "call_0_0", JSON.readTree("{\"forecast\":\"rain\"}"))),
                null),
            "src-1.fork-1");

    // The entry's run was still going (its batch had results the model had not seen): the fork
    // continues it with a model turn, which sees the patched result.
    assertThat(forked.run()).isEqualTo(1);
    assertThat(forked.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(forked.text()).isEqualTo("answer");
    assertThat(forked.steps()).isEqualTo(2); // the entry's model turn plus the fork's
    List<Message> seen = modelSaw.get(modelSaw.size() - 1);
    assertThat(seen)
        .extracting(Message::role)
        .containsExactly(Role.USER, Role.ASSISTANT, Role.TOOL, Role.TOOL);
    assertThat(seen.get(2).result().get("forecast").asText()).isEqualTo("rain");
    RunResult rerun = kit.send("src-1.fork-1", "continue");
    assertThat(rerun.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(rerun.text()).isEqualTo("more");
    List<Message> forkTranscript = kit.store.readMessages("src-1.fork-1", rerun.messageCount());
    assertThat(forkTranscript.get(2).result().get("forecast").asText()).isEqualTo("rain");
    assertThat(forkTranscript.get(2).toolCallId()).isEqualTo("call_0_0");
    assertThat(forkTranscript.get(2).toolName()).isEqualTo("echo");
    // Recorded results were not re-run: no tool executed again for the fork.
    assertThat(kit.effects.get("call_0_0").get()).isEqualTo(1);

    // Lineage is on the fork's projection row, and survives a rebuild from its history.
    StoredSession forkRow = kit.store.session("src-1.fork-1").orElseThrow();
    assertThat(forkRow.parentSessionId()).isEqualTo("src-1");
    assertThat(forkRow.parentStep()).isEqualTo(2);
    assertThat(forkRow.forkPatch()).isEqualTo("toolResult(call_0_0)");
    assertThat(kit.store.session("src-1").orElseThrow().parentSessionId()).isNull();
    // The copied prefix is not in the fork's history, so a fork is rebuilt in place: lose the
    // lineage, and the rebuild writes it back from the fork's start input.
    try (java.sql.Connection db =
            java.sql.DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("projection.db"));
        java.sql.Statement wipe = db.createStatement()) {
      wipe.executeUpdate(
          "UPDATE agent_sessions SET parent_session_id = NULL, parent_step = NULL, fork_patch = NULL");
    }
    assertThat(kit.store.session("src-1.fork-1").orElseThrow().parentSessionId()).isNull();
    ProjectionRebuilder.newInstance()
        .rebuild(
            "src-1.fork-1", ProjectionRebuilder.fetchRuns(kit.client, "src-1.fork-1"), kit.store);
    assertThat(kit.store.session("src-1.fork-1").orElseThrow())
        .extracting(
            StoredSession::parentSessionId, StoredSession::parentStep, StoredSession::forkPatch)
        .containsExactly("src-1", 2, "toolResult(call_0_0)");

    assertThat(snapshot("src-1")).isEqualTo(before);
    List<Message> sourceTranscript = kit.store.readMessages("src-1", source.messageCount());
    Trajectories.Comparison diff =
        Trajectories.compare(sourceTranscript, "stop", forkTranscript, "stop");
    assertThat(diff.divergedAt()).isEqualTo(0);
  }

  @Test
  void forkAfterAModelTurnWithUnansweredCalls_runsThoseCallsFirst_andKeepsStepsAndUsage()
      throws Exception {
    kit = new SessionTestKit(dir, Scripts.of(TWO_CALLS), 10);
    kit.send("src-2", "go");

    RunResult forked = fork("src-2", 1, ForkPatch.NONE, "src-2.fork-1");

    assertThat(forked.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(forked.run()).isEqualTo(1);
    assertThat(forked.toolCalls())
        .extracting(ToolCallRecord::id)
        .containsExactly("call_0_0", "call_0_1");
    assertThat(forked.text()).isEqualTo("answer");
    // The fork ran the two calls itself (a second effect each), then one model turn.
    assertThat(kit.effects.get("call_0_0").get()).isEqualTo(2);
    // Steps continue from the entry: entry 1, batch 2, answer 3; usage continues from its totals.
    assertThat(kit.store.history("src-2.fork-1", 0))
        .extracting(StoredEntry::step)
        .containsExactly(3, 2, 1);
    assertThat(kit.session("src-2.fork-1").status().usage().inputTokens()).isEqualTo(30);
    assertThat(forked.steps()).isEqualTo(2); // the entry's model turn plus the fork's
  }

  @Test
  void forkWithAppendInput_sendsItAfterThePendingCalls() throws Exception {
    kit = new SessionTestKit(dir, Scripts.of(TWO_CALLS), 10);
    kit.send("src-3", "go");

    RunResult forked =
        fork("src-3", 1, new ForkPatch(null, null, null, "also check Rome"), "src-3.fork-1");

    List<Message> transcript = kit.store.readMessages("src-3.fork-1", forked.messageCount());
    assertThat(transcript)
        .extracting(Message::role)
        .containsExactly(
            Role.USER, Role.ASSISTANT, Role.TOOL, Role.TOOL, Role.USER, Role.ASSISTANT);
    assertThat(transcript.get(4).text()).isEqualTo("also check Rome");
  }

  @Test
  void forkWithRewrittenMessages_startsFromThem() throws Exception {
    kit = new SessionTestKit(dir, Scripts.of(TWO_CALLS), 10);
    kit.send("src-4", "go");

    fork(
        "src-4",
        3,
        new ForkPatch(List.of(Message.user("a different start")), null, null, null),
        "src-4.fork-1");
    RunResult next = kit.send("src-4.fork-1", "and?");

    List<Message> transcript = kit.store.readMessages("src-4.fork-1", next.messageCount());
    assertThat(transcript.get(0).text()).isEqualTo("a different start");
    // The scripted model sees no assistant message yet, so it plays its first turn again.
    assertThat(transcript)
        .extracting(Message::role)
        .containsExactly(
            Role.USER, Role.USER, Role.ASSISTANT, Role.TOOL, Role.TOOL, Role.ASSISTANT);
  }

  @Test
  void forkAtAnApprovalPause_goesThroughApprovalAgainWithANewId() throws Exception {
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'pay','arguments':{'amount':700}}]},{'text':'paid'}]}"),
            10);
    RunResult paused = kit.send("src-5", "pay");
    int pausedStep = kit.store.history("src-5", 1).get(0).step();

    RunResult forked = fork("src-5", pausedStep, ForkPatch.NONE, "src-5.fork-1");

    assertThat(forked.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    assertThat(forked.approval().toolCallId()).isEqualTo("call_0_0");
    assertThat(forked.approval().approvalId()).isNotEqualTo(paused.approval().approvalId());
    kit.session("src-5.fork-1")
        .approve(new Decision(forked.approval().approvalId(), true, null, "x"));
    assertThat(kit.attach("src-5.fork-1").text()).isEqualTo("paid");
    // The source still waits on its own approval.
    assertThat(kit.session("src-5").status().approval().approvalId())
        .isEqualTo(paused.approval().approvalId());
  }

  @Test
  void aForksFirstModelTurn_usesTheTranscriptThePreparationWrote_withoutReadingItBack() {
    kit = new SessionTestKit(dir, Scripts.of(TWO_CALLS), 10);
    kit.send("src-7", "go");
    kit.storeCalls.putIfAbsent("readMessages", new java.util.concurrent.atomic.AtomicInteger());
    int readsBefore = kit.storeCalls.get("readMessages").get();

    RunResult forked =
        fork("src-7", 2, new ForkPatch(null, null, null, "and then?"), "src-7.fork-1");

    assertThat(forked.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(forked.text()).isEqualTo("answer");
    // No read at all: this worker still holds the source's transcript up to the entry (what it
    // sent to the model last), and the fork's turn uses what the preparation wrote.
    assertThat(kit.storeCalls.get("readMessages").get() - readsBefore).isZero();

    // From the last entry, only what the worker does not hold is read: the source's answer.
    RunResult fromTheEnd =
        fork("src-7", 3, new ForkPatch(null, null, null, "and?"), "src-7.fork-2");
    assertThat(fromTheEnd.text()).isEqualTo("more");
    assertThat(kit.storeCalls.get("readMessages").get() - readsBefore).isEqualTo(1);
    assertThat(kit.messageReads).last().isEqualTo("src-7 4-5");
    assertThat(kit.store.readMessages("src-7.fork-2", 5))
        .isEqualTo(kit.store.readMessages("src-7", 5));

    // The fork took the entry's stored hash chain (nothing of the transcript was patched): a
    // client re-sending the fork's whole conversation is recognised, and only its new message runs.
    List<Message> conversation =
        new java.util.ArrayList<>(kit.store.readMessages("src-7.fork-1", forked.messageCount()));
    conversation.add(Message.user("one more"));
    RunResult resent =
        kit.session("src-7.fork-1")
            .send(io.durableagents.workflow.internal.wire.SendRequest.ofMessages(conversation));
    assertThat(resent.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(resent.messageCount()).isEqualTo(forked.messageCount() + 2);
  }

  @Test
  void forkFromAStepThatIsNotKept_isRefusedWithCheckpointNotFoundListingTheKeptSteps() {
    kit = new SessionTestKit(dir, Scripts.of(TWO_CALLS), 10);
    kit.send("src-6", "go");

    ForkOutcome outcome = kit.forkPrepared("src-6", 42, ForkPatch.NONE, "src-6.fork-1");

    assertThat(outcome.refusal())
        .isEqualTo("Session 'src-6' has no kept history entry at step 42; kept steps: 1, 2, 3.");
    assertThat(kit.store.session("src-6.fork-1")).isEmpty();
  }

  @Test
  void aForkRightAfterAToolBatch_continuesTheRun_evenWithNothingPatched() {
    kit = new SessionTestKit(dir, Scripts.of(TWO_CALLS), 10);
    kit.send("src-8", "go");

    RunResult forked = fork("src-8", 2, ForkPatch.NONE, "src-8.fork-1");

    assertThat(forked.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(forked.finishReason()).isEqualTo("stop");
    assertThat(forked.text()).isEqualTo("answer");
    assertThat(kit.store.readMessages("src-8.fork-1", forked.messageCount()))
        .extracting(Message::role)
        .containsExactly(Role.USER, Role.ASSISTANT, Role.TOOL, Role.TOOL, Role.ASSISTANT);
    // No tool ran again: the batch's results were recorded.
    assertThat(kit.effects.get("call_0_0").get()).isEqualTo(1);
    // A settled entry stays settled: forking the answer runs nothing.
    RunResult atTheAnswer = fork("src-8", 3, ForkPatch.NONE, "src-8.fork-2");
    assertThat(atTheAnswer.steps()).isZero();
    assertThat(atTheAnswer.messageCount()).isEqualTo(5);
  }

  @Test
  void
      aForkWhoseAppendedInputIsOverTheLimit_isRefused_beforeAnythingIsWritten_andLeavesNoSession() {
    kit = new SessionTestKit(dir, Scripts.of(TWO_CALLS), 10);
    kit.send("src-9", "go");

    String input = "a".repeat(io.durableagents.workflow.Limits.INPUT_CHARS + 1);
    ForkOutcome outcome =
        kit.forkPrepared("src-9", 3, new ForkPatch(null, null, null, input), "src-9.fork-1");

    assertThat(outcome.status()).isNull();
    assertThat(outcome.refusal())
        .isEqualTo(
            "The appended input is "
                + input.length()
                + " characters, over the limit of 262144 per input; attach large content as an artifact instead.");
    assertThat(closedStatus("src-9.fork-1"))
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
    assertThat(kit.store.session("src-9.fork-1")).isEmpty();
    assertThat(kit.storeCalls).doesNotContainKey("saveFork");
  }

  @Test
  void aForkWithAToolResultForACallTheEntryDoesNotHave_isRefused_andWritesNothing()
      throws Exception {
    kit = new SessionTestKit(dir, Scripts.of(TWO_CALLS), 10);
    kit.send("src-10", "go");

    ForkOutcome outcome =
        kit.forkPrepared(
            "src-10",
            3,
            new ForkPatch(
                null,
                null,
                List.of(new ForkPatch.ToolResultPatch("call_9_9", JSON.readTree("{}"))),
                null),
            "src-10.fork-1");

    assertThat(outcome.refusal()).isEqualTo("The transcript has no tool call 'call_9_9' to patch.");
    assertThat(closedStatus("src-10.fork-1"))
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
    assertThat(kit.store.session("src-10.fork-1")).isEmpty();
  }

  @Test
  void forkPrepared_answersTheForksStatus_onceItsTranscriptIsPrepared() {
    kit = new SessionTestKit(dir, Scripts.of(TWO_CALLS), 10);
    kit.send("src-11", "go");

    ForkOutcome outcome = kit.forkPrepared("src-11", 2, ForkPatch.NONE, "src-11.fork-1");

    assertThat(outcome.isRefused()).isFalse();
    assertThat(outcome.status().sessionId()).isEqualTo("src-11.fork-1");
    assertThat(kit.store.session("src-11.fork-1")).isPresent();
    assertThat(kit.attach("src-11.fork-1").status()).isEqualTo(RunStatus.FINISHED);
  }

  private WorkflowExecutionStatus closedStatus(String id) {
    return kit.client.newUntypedWorkflowStub(id).describe().getStatus();
  }
}
