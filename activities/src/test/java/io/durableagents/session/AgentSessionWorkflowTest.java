package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.model.ModelException;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ModelResponse;
import io.durableagents.model.ModelStream;
import io.durableagents.projection.internal.StoredEntry;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.ToolCallRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentSessionWorkflowTest {
  @TempDir Path dir;
  private SessionTestKit kit;

  private SessionTestKit kit(ModelProvider model, int maxSteps) {
    kit = new SessionTestKit(dir, model, maxSteps);
    return kit;
  }

  @AfterEach
  void close() {
    if (kit != null) {
      kit.close();
    }
  }

  @Test
  void plainAnswer_finishesWithTheModelsText() {
    kit(
        Scripts.of("{'turns':[{'text':'Hello there','usage':{'inputTokens':7,'outputTokens':2}}]}"),
        10);

    RunResult result = kit.send("plain-1", "hi");

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(result.finishReason()).isEqualTo(FinishReason.STOP);
    assertThat(result.text()).isEqualTo("Hello there");
    assertThat(result.run()).isEqualTo(1);
    assertThat(result.steps()).isEqualTo(1);
    assertThat(result.usage().inputTokens()).isEqualTo(7);
    assertThat(result.usage().outputTokens()).isEqualTo(2);
    assertThat(result.toolCalls()).isEmpty();
    assertThat(kit.store.readMessages("plain-1", result.messageCount()))
        .containsExactly(Message.user("hi"), Message.assistant("Hello there", List.of()));
    List<StoredEntry> history = kit.store.history("plain-1", 0);
    assertThat(history).hasSize(1);
    assertThat(history.get(0).status()).isEqualTo(RunStatus.FINISHED);
  }

  @Test
  void twoTurnToolLoop_runsEveryCallInOrderThenAnswers() {
    kit(
        Scripts.of(
            "{'turns':["
                + "{'text':'working','toolCalls':[{'name':'add','arguments':{'a':1,'b':2}},"
                + "{'name':'echo','arguments':{'text':'x'}}]},"
                + "{'text':'3 and x'}]}"),
        10);

    RunResult result = kit.send("loop-1", "compute");

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(result.text()).isEqualTo("3 and x");
    assertThat(result.steps()).isEqualTo(2);
    assertThat(result.toolCalls())
        .extracting(ToolCallRecord::id)
        .containsExactly("call_0_0", "call_0_1");
    assertThat(result.toolCalls().get(0).result().get("sum").asInt()).isEqualTo(3);
    assertThat(result.toolCalls().get(1).result().get("echo").asText()).isEqualTo("x");

    List<Message> transcript = kit.store.readMessages("loop-1", result.messageCount());
    assertThat(transcript)
        .extracting(Message::role)
        .containsExactly(Role.USER, Role.ASSISTANT, Role.TOOL, Role.TOOL, Role.ASSISTANT);
    assertThat(transcript.get(2).toolCallId()).isEqualTo("call_0_0");
    assertThat(transcript.get(3).toolCallId()).isEqualTo("call_0_1");
    // One entry after each model turn and one after the batch, newest first.
    assertThat(kit.store.history("loop-1", 0))
        .extracting(StoredEntry::step)
        .containsExactly(3, 2, 1);
    assertThat(kit.effects).containsOnlyKeys("call_0_0", "call_0_1");
  }

  @Test
  void unknownTool_invalidArguments_throwingTool_becomeErrorResultsAndTheRunFinishes() {
    kit(
        Scripts.of(
            "{'turns':["
                + "{'toolCalls':[{'name':'nope','arguments':{}},"
                + "{'name':'add','arguments':{'a':'one','b':2}},"
                + "{'name':'boom','arguments':{}}]},"
                + "{'text':'recovered'}]}"),
        10);

    RunResult result = kit.send("errors-1", "go");

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(result.text()).isEqualTo("recovered");
    assertThat(result.toolCalls()).hasSize(3);
    assertThat(result.toolCalls().get(0).result().get("error").asText()).isEqualTo("unknown_tool");
    assertThat(result.toolCalls().get(1).result().get("error").asText())
        .isEqualTo("invalid_arguments");
    assertThat(result.toolCalls().get(1).result().get("message").asText()).contains("add");
    assertThat(result.toolCalls().get(2).result().get("error").asText()).isEqualTo("tool_error");
    assertThat(result.toolCalls().get(2).result().get("message").asText())
        .isEqualTo("boom went the tool");
    // Neither the unknown tool nor the invalid call executed anything; boom ran once (no retry).
    assertThat(kit.effects).containsOnlyKeys("call_0_2");
    assertThat(kit.effects.get("call_0_2").get()).isEqualTo(1);
  }

  @Test
  void transientToolFailure_isRetriedPerTheToolsPolicy() {
    kit(
        Scripts.of("{'turns':[{'toolCalls':[{'name':'flaky','arguments':{}}]},{'text':'ok'}]}"),
        10);

    RunResult result = kit.send("flaky-1", "go");

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(result.toolCalls().get(0).result().get("attempt").asInt()).isEqualTo(3);
    assertThat(kit.effects.get("call_0_0").get()).isEqualTo(3);
  }

  @Test
  void maxSteps_stopsTheLoopAfterThatManyModelTurns() {
    CountingModel model =
        new CountingModel(
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'echo','arguments':{'text':'1'}}]},"
                    + "{'toolCalls':[{'name':'echo','arguments':{'text':'2'}}]},"
                    + "{'toolCalls':[{'name':'echo','arguments':{'text':'3'}}]}]}"));
    kit(model, 2);

    RunResult result = kit.send("budget-1", "loop forever");

    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(result.finishReason()).isEqualTo(FinishReason.MAX_STEPS);
    assertThat(result.steps()).isEqualTo(2);
    assertThat(model.calls.get()).isEqualTo(2);
    assertThat(kit.store.history("budget-1", 1).get(0).finishReason())
        .isEqualTo(FinishReason.MAX_STEPS);
  }

  @Test
  void secondSend_continuesTheConversationAndCountsTheRunFromZero() {
    kit(
        Scripts.of(
            "{'turns':[{'toolCalls':[{'name':'echo','arguments':{'text':'a'}}]},{'text':'first'},"
                + "{'text':'second'}]}"),
        10);

    RunResult first = kit.send("chat-1", "hello");
    RunResult second = kit.send("chat-1", "and again");

    assertThat(first.run()).isEqualTo(1);
    assertThat(second.run()).isEqualTo(2);
    assertThat(second.text()).isEqualTo("second");
    assertThat(second.steps()).isEqualTo(1);
    assertThat(second.toolCalls()).isEmpty();
    List<Message> transcript = kit.store.readMessages("chat-1", second.messageCount());
    assertThat(transcript)
        .extracting(Message::role)
        .containsExactly(
            Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT, Role.USER, Role.ASSISTANT);
    assertThat(transcript.get(0).text()).isEqualTo("hello");
    assertThat(transcript.get(4).text()).isEqualTo("and again");
  }

  @Test
  void modelError_failsTheRunWithItsCodeAndKeepsTheUserMessage() {
    kit(Scripts.of("{'turns':[{'error':'provider said no'}]}"), 10);

    RunResult result = kit.send("fail-1", "hi");

    assertThat(result.status()).isEqualTo(RunStatus.FAILED);
    assertThat(result.finishReason()).isEqualTo(FinishReason.ERROR);
    assertThat(result.error().code()).isEqualTo("model_error");
    assertThat(result.error().message()).isEqualTo("provider said no");
    assertThat(kit.store.readMessages("fail-1", result.messageCount()))
        .containsExactly(Message.user("hi"));
    assertThat(kit.store.history("fail-1", 1).get(0).status()).isEqualTo(RunStatus.FAILED);
  }

  @Test
  void everyModelTurnAndToolResultIsAStepRecord_timedWhereAWorkerRanIt() {
    kit(
        Scripts.of(
            "{'turns':["
                + "{'toolCalls':[{'name':'nope','arguments':{}},"
                + "{'name':'add','arguments':{'a':'one','b':2}},"
                + "{'name':'boom','arguments':{}}]},"
                + "{'text':'recovered'}]}"),
        10);
    long before = System.currentTimeMillis();

    RunResult result = kit.send("steps-1", "go");

    long after = System.currentTimeMillis();
    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    Map<Integer, List<StepRecord>> steps = kit.store.steps("steps-1", 0, 100);
    // The turn's entry, the batch's, the answer's: each with the steps it recorded.
    assertThat(steps.keySet()).containsExactly(1, 2, 3);
    assertThat(steps.get(2))
        .extracting(StepRecord::kind, StepRecord::name, StepRecord::error)
        .containsExactly(
            tuple("tool", "nope", "unknown_tool"),
            tuple("tool", "add", "invalid_arguments"),
            tuple("tool", "boom", "tool_error"));
    // Calls that never ran have no times; the one a worker ran has its times.
    assertThat(steps.get(2).subList(0, 2)).extracting(StepRecord::startedAt).containsOnlyNulls();
    StepRecord ran = steps.get(2).get(2);
    assertThat(ran.startedAt()).isBetween(before, after);
    assertThat(ran.finishedAt()).isBetween(ran.startedAt(), after);
    for (int entry : List.of(1, 3)) {
      StepRecord turn = steps.get(entry).get(0);
      assertThat(turn.kind()).isEqualTo("model");
      assertThat(turn.name()).isEqualTo("scripted");
      assertThat(turn.error()).isNull();
      assertThat(turn.startedAt()).isBetween(before, after);
      assertThat(turn.finishedAt()).isBetween(turn.startedAt(), after);
    }
    assertThat(kit.store.runs("steps-1"))
        .singleElement()
        .satisfies(
            run -> {
              assertThat(run.status()).isEqualTo(RunStatus.FINISHED);
              assertThat(run.finishedAt()).isGreaterThanOrEqualTo(run.startedAt());
            });
  }

  @Test
  void aModelTurnThatFailsAfterStreamingText_keepsThatTextOnItsFailedStep() {
    kit(
        (request, stream) -> {
          stream.text("Half an ");
          throw ModelException.permanent("model_response_invalid", "bad chunk")
              .withPartialText("Half an ");
        },
        10);

    RunResult result = kit.send("partial-1", "hi");

    assertThat(result.status()).isEqualTo(RunStatus.FAILED);
    StepRecord failed = kit.store.steps("partial-1", 0, 100).get(1).get(0);
    assertThat(failed.kind()).isEqualTo("model");
    assertThat(failed.error()).isEqualTo("model_response_invalid: bad chunk");
    assertThat(failed.text()).isEqualTo("Half an ");
    assertThat(failed.finishedAt()).isGreaterThanOrEqualTo(failed.startedAt());
    // The transcript never has it.
    assertThat(kit.store.readMessages("partial-1", result.messageCount()))
        .containsExactly(Message.user("hi"));
    assertThat(kit.store.runs("partial-1").get(0).status()).isEqualTo(RunStatus.FAILED);
  }

  /** Counts provider calls: the number of model turns actually generated. */
  static final class CountingModel implements ModelProvider {
    final AtomicInteger calls = new AtomicInteger();
    private final ModelProvider delegate;

    CountingModel(ModelProvider delegate) {
      this.delegate = delegate;
    }

    @Override
    public ModelResponse generate(ModelRequest request, ModelStream stream) {
      calls.incrementAndGet();
      return delegate.generate(request, stream);
    }
  }
}
