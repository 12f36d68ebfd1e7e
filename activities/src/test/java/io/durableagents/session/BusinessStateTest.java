package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import io.durableagents.agent.Execution;
import io.durableagents.projection.internal.StoredEntry;
import io.durableagents.tools.BusinessState;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.ToolCallRecord;
import io.durableagents.workflow.internal.wire.Decision;
import io.durableagents.workflow.internal.wire.ErrorResults;
import io.temporal.worker.WorkerFactoryOptions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Business state: JSON the tools read and update with merge patches, kept in every checkpoint,
 * carried across continue-as-new, and replaced by a fork's {@code businessState} patch.
 */
class BusinessStateTest extends SessionKitTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text.replace('\'', '"'));
  }

  private static JsonNode resultOf(RunResult result, String callId) {
    return result.toolCalls().stream()
        .filter(call -> call.id().equals(callId))
        .map(ToolCallRecord::result)
        .findFirst()
        .orElseThrow();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Execution.class)
  void parallelUpdatesMergeInCallOrder_theNextTurnsToolsSeeThem_andEachEntryKeepsTheState(
      Execution mode) throws Exception {
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'remember','arguments':{'city':'Bern','n':1}},"
                    + "{'name':'remember','arguments':{'n':2,'dog':true}}]},"
                    + "{'toolCalls':[{'name':'recall','arguments':{}},"
                    + "{'name':'remember','arguments':{'dog':null}}]},{'text':'done'},{'text':'again'}]}"),
            10,
            mode);
    RunResult result = kit.send("state-1", "go");

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    // Both calls of the first batch started from no state; their patches merge in call order.
    assertThat(resultOf(result, "call_0_0")).isEqualTo(json("{'city':'Bern','n':1}"));
    assertThat(resultOf(result, "call_0_1")).isEqualTo(json("{'n':2,'dog':true}"));
    assertThat(resultOf(result, "call_1_0")).isEqualTo(json("{'city':'Bern','n':2,'dog':true}"));
    assertThat(kit.session("state-1").status().businessState())
        .isEqualTo(json("{'city':'Bern','n':2}"));

    List<StoredEntry> history = kit.store.history("state-1", 0);
    assertThat(history).extracting(StoredEntry::step).containsExactly(5, 4, 3, 2, 1);
    assertThat(history)
        .extracting(StoredEntry::businessState)
        .containsExactly(
            json("{'city':'Bern','n':2}"),
            json("{'city':'Bern','n':2}"),
            json("{'city':'Bern','n':2,'dog':true}"),
            json("{'city':'Bern','n':2,'dog':true}"),
            null);

    // The next run of the session starts from the state the last one left.
    kit.send("state-1", "again");
    assertThat(kit.session("state-1").status().businessState())
        .isEqualTo(json("{'city':'Bern','n':2}"));
  }

  @Test
  void aCallThatStartsAfterAnotherFinished_seesItsUpdate_evenAcrossAnApproval() throws Exception {
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'remember','arguments':{'seen':'before'}},"
                    + "{'name':'pay','arguments':{'amount':500}},{'name':'recall','arguments':{}}]},"
                    + "{'text':'paid'}]}"),
            10);
    RunResult paused = kit.send("state-gate", "pay");
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    // The pause's entry already holds the update of the call before the gated one.
    assertThat(kit.store.history("state-gate", 1).get(0).businessState())
        .isEqualTo(json("{'seen':'before'}"));

    kit.session("state-gate")
        .approve(new Decision(paused.approval().approvalId(), true, null, "ops"));
    RunResult done = kit.attach("state-gate");
    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(resultOf(done, "call_0_2")).isEqualTo(json("{'seen':'before'}"));
  }

  @Test
  void sequentialCallsOfOneBatch_seeTheUpdatesOfTheCallsBefore() throws Exception {
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'remember','arguments':{'a':1}},"
                    + "{'name':'remember','arguments':{'b':2}},{'name':'recall','arguments':{}}]},"
                    + "{'text':'ok'}]}"),
            agent -> agent.setMaxSteps(10).setToolConcurrency(1),
            WorkerFactoryOptions.newBuilder());
    RunResult result = kit.send("state-seq", "go");
    assertThat(resultOf(result, "call_0_1")).isEqualTo(json("{'a':1,'b':2}"));
    assertThat(resultOf(result, "call_0_2")).isEqualTo(json("{'a':1,'b':2}"));
  }

  @Test
  void aToolThatThrows_orGrowsTheStatePastTheLimit_leavesNoUpdate() throws Exception {
    String big = "x".repeat(BusinessState.MAX_BYTES);
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'remember','arguments':{'kept':true}}]},"
                    + "{'toolCalls':[{'name':'remember_then_fail','arguments':{'lost':1}},"
                    + "{'name':'remember','arguments':{'blob':'"
                    + big
                    + "'}}]},{'text':'ok'}]}"),
            10);
    RunResult result = kit.send("state-errors", "go");

    assertThat(resultOf(result, "call_1_0").path("error").asText())
        .isEqualTo(ErrorResults.TOOL_ERROR);
    JsonNode tooLarge = resultOf(result, "call_1_1");
    assertThat(tooLarge.path("error").asText()).isEqualTo(ErrorResults.STATE_TOO_LARGE);
    assertThat(tooLarge.path("message").asText())
        .contains("over the limit of " + BusinessState.MAX_BYTES);
    assertThat(kit.session("state-errors").status().businessState())
        .isEqualTo(json("{'kept':true}"));
  }

  @Test
  void theStateSurvivesContinueAsNew() throws Exception {
    StringBuilder turns = new StringBuilder("{'turns':[");
    for (int i = 0; i < 12; i++) {
      turns
          .append("{'toolCalls':[{'name':'remember','arguments':{'k")
          .append(i)
          .append("':")
          .append(i)
          .append("}}]},");
    }
    turns.append("{'text':'done'}]}");
    kit = new SessionTestKit(dir, Scripts.of(turns.toString()), 20);
    RunResult result = kit.send("state-can", "go", null, 40);

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    JsonNode state = kit.session("state-can").status().businessState();
    assertThat(state.size()).isEqualTo(12);
    assertThat(state.path("k0").asInt()).isZero();
    assertThat(state.path("k11").asInt()).isEqualTo(11);
    assertThat(kit.closedRuns("state-can"))
        .as("workflow runs closed by continue-as-new")
        .isGreaterThanOrEqualTo(2);
  }

  @Test
  void aForkKeepsTheEntrysState_orThePatchReplacesIt_andTheForksToolsSeeIt() throws Exception {
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'remember','arguments':{'plan':'a','n':1}}]},"
                    + "{'toolCalls':[{'name':'recall','arguments':{}}]},{'text':'done'}]}"),
            10);
    kit.send("state-src", "go");

    // Step 2 is the entry after the first batch: the fork continues the run with the source's
    // second turn.
    RunResult kept = kit.fork("state-src", 2, null, "state-src.fork-1");
    assertThat(resultOf(kept, "call_1_0")).isEqualTo(json("{'plan':'a','n':1}"));

    RunResult replaced =
        kit.fork(
            "state-src",
            2,
            new ForkPatch(null, json("{'plan':'b'}"), null, null),
            "state-src.fork-2");
    assertThat(kit.store.history("state-src.fork-2", 0))
        .last()
        .satisfies(entry -> assertThat(entry.businessState()).isEqualTo(json("{'plan':'b'}")));
    assertThat(resultOf(replaced, "call_1_0")).isEqualTo(json("{'plan':'b'}"));

    // The source is untouched.
    assertThat(kit.session("state-src").status().businessState())
        .isEqualTo(json("{'plan':'a','n':1}"));
  }

  @Test
  void aNullPatchClearsTheState_andAPatchThatIsNotAnObjectFailsTheForkWithInvalidPatch()
      throws Exception {
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'remember','arguments':{'plan':'a'}}]},{'text':'done'}]}"),
            10);
    kit.send("state-clear", "go");

    kit.fork(
        "state-clear",
        2,
        new ForkPatch(null, NullNode.getInstance(), null, null),
        "state-clear.fork-1");
    assertThat(kit.store.history("state-clear.fork-1", 1).get(0).businessState()).isNull();
    assertThat(kit.session("state-clear.fork-1").status().businessState()).isNull();

    io.durableagents.workflow.internal.wire.ForkOutcome refused =
        kit.forkPrepared(
            "state-clear", 2, new ForkPatch(null, json("['a']"), null, null), "state-clear.fork-2");
    // Refused by the fork itself, before it asks the worker to prepare anything.
    assertThat(refused.refusal()).contains("JSON object (or null to clear it), not ARRAY");
    assertThat(kit.store.session("state-clear.fork-2")).isEmpty();
  }
}
