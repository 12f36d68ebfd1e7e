package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.model.ModelException;
import io.durableagents.model.ModelProvider;
import io.durableagents.projection.internal.StoredEntry;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.Decision;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.temporal.worker.WorkerFactoryOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A send after a failed or cancelled run: the same input resumes that run with the budget it has
 * left (within the resume window, or with the same idempotency key); other input, or the same after
 * the window, starts a new run.
 */
class RunResumeTest extends SessionKitTest {
  /** Three tool-calling turns (the second slow enough to cancel), then an answer. */
  private static final String THREE_TOOL_TURNS =
      "{'turns':[{'toolCalls':[{'name':'echo','arguments':{'text':'one'}}]},"
          + "{'toolCalls':[{'name':'slow','arguments':{'ms':3000}}]},"
          + "{'toolCalls':[{'name':'echo','arguments':{'text':'three'}}]},"
          + "{'text':'done'}]}";

  /** Session {@code sessionId}'s first run of {@code request}, cancelled during its second turn. */
  private RunResult cancelledInItsSecondTurn(String sessionId, SendRequest request)
      throws Exception {
    CompletableFuture<RunResult> run =
        CompletableFuture.supplyAsync(() -> kit.send(sessionId, request));
    await("the slow call started")
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> kit.effects.containsKey("call_1_0"));
    kit.session(sessionId).cancel("test");
    RunResult cancelled = run.get(2, TimeUnit.MINUTES);
    assertThat(cancelled.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(cancelled.steps()).isEqualTo(2);
    return cancelled;
  }

  private List<String> userTexts(String sessionId, RunResult result) {
    return kit.store.readMessages(sessionId, result.messageCount()).stream()
        .filter(m -> m.role() == Role.USER)
        .map(Message::text)
        .toList();
  }

  @Test
  void theSameTextAfterACancel_resumesTheRun_withTheStepsItHadLeft() throws Exception {
    kit = new SessionTestKit(dir, Scripts.of(THREE_TOOL_TURNS), 3);
    RunResult cancelled = cancelledInItsSecondTurn("resume-cancel", new SendRequest("go"));

    RunResult resumed = kit.send("resume-cancel", "go");

    // One step was left of three: the model wanted a fourth turn and did not get it.
    assertThat(resumed.run()).isEqualTo(1);
    assertThat(resumed.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(resumed.finishReason()).isEqualTo(FinishReason.MAX_STEPS);
    assertThat(resumed.steps()).isEqualTo(3);
    assertThat(resumed.usage().total()).isGreaterThan(cancelled.usage().total());
    assertThat(resumed.toolCalls()).hasSize(3);
    assertThat(resumed.toolCalls().get(1).result().path("error").asText()).isEqualTo("cancelled");
    List<Message> transcript = kit.store.readMessages("resume-cancel", resumed.messageCount());
    assertThat(transcript)
        .extracting(Message::role)
        .containsExactly(
            Role.USER,
            Role.ASSISTANT,
            Role.TOOL,
            Role.ASSISTANT,
            Role.TOOL,
            Role.ASSISTANT,
            Role.TOOL);
    assertThat(userTexts("resume-cancel", resumed)).containsExactly("go");
    // The history (newest first) shows where the run resumed, under its own number.
    List<StoredEntry> entries = kit.store.history("resume-cancel", 0);
    assertThat(entries).allMatch(e -> e.run() == 1);
    assertThat(entries)
        .extracting(StoredEntry::finishReason)
        .containsSubsequence(FinishReason.RESUMED, FinishReason.CANCELLED);
    assertThat(kit.session("resume-cancel").status().run()).isEqualTo(1);
  }

  @Test
  void theSameTextAfterAModelFailure_resumesTheRun_withoutAddingTheMessageAgain() {
    AtomicBoolean failed = new AtomicBoolean();
    ModelProvider script =
        Scripts.of(
            "{'turns':[{'toolCalls':[{'name':'echo','arguments':{'text':'a'}}]},{'text':'done'}]}");
    ModelProvider failingOnce =
        (request, stream) -> {
          if (request.assistantTurns() == 1 && failed.compareAndSet(false, true)) {
            throw ModelException.permanent(FailureTypes.MODEL_ERROR, "the model is overloaded");
          }
          return script.generate(request, stream);
        };
    kit = new SessionTestKit(dir, failingOnce, 10);
    RunResult failure = kit.send("resume-failed", "hello");
    assertThat(failure.status()).isEqualTo(RunStatus.FAILED);
    assertThat(failure.error().code()).isEqualTo(FailureTypes.MODEL_ERROR);

    RunResult resumed = kit.send("resume-failed", "hello");

    assertThat(resumed.run()).isEqualTo(1);
    assertThat(resumed.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(resumed.text()).isEqualTo("done");
    assertThat(resumed.steps()).isEqualTo(2);
    assertThat(resumed.toolCalls()).hasSize(1);
    assertThat(kit.store.readMessages("resume-failed", resumed.messageCount()))
        .extracting(Message::role)
        .containsExactly(Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT);
    assertThat(userTexts("resume-failed", resumed)).containsExactly("hello");
  }

  @Test
  void otherTextAfterACancel_startsANewRun() throws Exception {
    kit = new SessionTestKit(dir, Scripts.of(THREE_TOOL_TURNS), 3);
    cancelledInItsSecondTurn("resume-other", new SendRequest("go"));

    RunResult next = kit.send("resume-other", "something else");

    assertThat(next.run()).isEqualTo(2);
    assertThat(next.steps()).isEqualTo(2); // a fresh budget: turns three and four
    assertThat(next.text()).isEqualTo("done");
    assertThat(userTexts("resume-other", next)).containsExactly("go", "something else");
  }

  @Test
  void theSameTextWithAnotherRunConfiguration_startsANewRun() throws Exception {
    kit = new SessionTestKit(dir, Scripts.of(THREE_TOOL_TURNS), 3);
    cancelledInItsSecondTurn(
        "resume-config",
        new SendRequest("go")
            .withRunConfig(JsonNodeFactory.instance.objectNode().put("tier", "a")));

    RunResult next =
        kit.send(
            "resume-config",
            new SendRequest("go")
                .withRunConfig(JsonNodeFactory.instance.objectNode().put("tier", "b")));

    assertThat(next.run()).isEqualTo(2);
    assertThat(userTexts("resume-config", next)).containsExactly("go", "go");
  }

  @Test
  void aCancelledRunCarriedOverContinueAsNew_isResumedByTheSameText() throws Exception {
    kit = new SessionTestKit(dir, Scripts.of(THREE_TOOL_TURNS), 3);
    CompletableFuture<RunResult> run =
        CompletableFuture.supplyAsync(() -> kit.send("resume-can", "go", null, 40));
    await("the slow call started")
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> kit.effects.containsKey("call_1_0"));
    kit.session("resume-can").cancel("test");
    assertThat(run.get(2, TimeUnit.MINUTES).status()).isEqualTo(RunStatus.CANCELLED);
    // Ignored decisions grow the history until the idle session continues as new.
    long closedBefore = kit.closedRuns("resume-can");
    for (int i = 0; i < 200 && kit.closedRuns("resume-can") == closedBefore; i++) {
      try {
        kit.session("resume-can").decide(new Decision("no-such-approval", true, null, "grow"));
      } catch (io.temporal.client.WorkflowNotFoundException e) {
        // The test server knows no open run for an instant while the session continues as new.
      }
      Thread.sleep(20);
    }
    assertThat(kit.closedRuns("resume-can")).isGreaterThan(closedBefore);

    RunResult resumed = kit.send("resume-can", "go");

    assertThat(resumed.run()).isEqualTo(1);
    assertThat(resumed.finishReason()).isEqualTo(FinishReason.MAX_STEPS);
    assertThat(resumed.steps()).isEqualTo(3);
    assertThat(userTexts("resume-can", resumed)).containsExactly("go");
  }

  /**
   * A resumed run's runTimeout is re-armed for the time it had left: the minute between the cancel
   * and the resume does not count (the resumed run takes a model turn), and the run does not get
   * the whole timeout again (its 4.5 s call, shorter than the 6 s timeout, is cut short).
   */
  @Test
  void aResumedRun_hasTheRestOfItsRunTimeout() throws Exception {
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'slow','arguments':{'ms':5000}}]},"
                    + "{'toolCalls':[{'name':'slow','arguments':{'ms':4500}}]},{'text':'done'}]}"),
            a -> a.setMaxSteps(10).setRunTimeout(Duration.ofSeconds(6)),
            WorkerFactoryOptions.newBuilder());
    CompletableFuture<RunResult> run =
        CompletableFuture.supplyAsync(() -> kit.send("resume-timeout", "go"));
    await("the first slow call started")
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> kit.effects.containsKey("call_0_0"));
    Thread.sleep(3000);
    kit.session("resume-timeout").cancel("test");
    assertThat(run.get(2, TimeUnit.MINUTES).status()).isEqualTo(RunStatus.CANCELLED);
    kit.env.sleep(Duration.ofMinutes(1));

    RunResult resumed = kit.send("resume-timeout", "go");

    assertThat(resumed.run()).isEqualTo(1);
    assertThat(kit.effects).containsKey("call_1_0");
    assertThat(resumed.status()).isEqualTo(RunStatus.FAILED);
    assertThat(resumed.finishReason()).isEqualTo(FinishReason.TIMEOUT);
    assertThat(resumed.toolCalls().get(1).result().path("error").asText()).isEqualTo("cancelled");
  }

  @Test
  void theSameTextAfterTheWindow_startsANewRun() throws Exception {
    kit = new SessionTestKit(dir, Scripts.of(THREE_TOOL_TURNS), 3);
    cancelledInItsSecondTurn("resume-late", new SendRequest("go"));
    kit.env.sleep(Duration.ofMinutes(11));

    RunResult next = kit.send("resume-late", "go");

    assertThat(next.run()).isEqualTo(2);
    assertThat(userTexts("resume-late", next)).containsExactly("go", "go");
  }

  @Test
  void aResumeWindowOfZero_startsANewRun_rightAway() throws Exception {
    kit = new SessionTestKit(dir, Scripts.of(THREE_TOOL_TURNS), 3);
    cancelledInItsSecondTurn("resume-zero", new SendRequest("go"));

    RunResult next = kit.send("resume-zero", new SendRequest("go").withResume(null, 0L));

    assertThat(next.run()).isEqualTo(2);
    assertThat(userTexts("resume-zero", next)).containsExactly("go", "go");
  }

  @Test
  void theSameIdempotencyKeyAfterTheWindow_resumesTheRun() throws Exception {
    kit = new SessionTestKit(dir, Scripts.of(THREE_TOOL_TURNS), 3);
    cancelledInItsSecondTurn("resume-key", new SendRequest("go").withResume("order-7", null));
    kit.env.sleep(Duration.ofMinutes(11));

    RunResult resumed = kit.send("resume-key", new SendRequest("go").withResume("order-7", null));

    assertThat(resumed.run()).isEqualTo(1);
    assertThat(resumed.steps()).isEqualTo(3);
    assertThat(userTexts("resume-key", resumed)).containsExactly("go");
  }

  @Test
  void anotherIdempotencyKey_startsANewRun_evenWithinTheWindow() throws Exception {
    kit = new SessionTestKit(dir, Scripts.of(THREE_TOOL_TURNS), 3);
    cancelledInItsSecondTurn("resume-keys", new SendRequest("go").withResume("order-7", null));

    RunResult next = kit.send("resume-keys", new SendRequest("go").withResume("order-8", null));

    assertThat(next.run()).isEqualTo(2);
    assertThat(userTexts("resume-keys", next)).containsExactly("go", "go");
  }

  @Test
  void theSameTextAfterAFinishedRun_startsANewRun() {
    kit = new SessionTestKit(dir, Scripts.of("{'turns':[{'text':'one'},{'text':'two'}]}"), 3);
    kit.send("resume-finished", "go");

    RunResult next = kit.send("resume-finished", "go");

    assertThat(next.run()).isEqualTo(2);
    assertThat(next.text()).isEqualTo("two");
    assertThat(userTexts("resume-finished", next)).containsExactly("go", "go");
  }

  @Test
  void theSameTextAfterARunOutOfSteps_startsANewRun() {
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'echo','arguments':{'text':'a'}}]},{'text':'two'}]}"),
            1);
    RunResult outOfSteps = kit.send("resume-budget", "go");
    assertThat(outOfSteps.finishReason()).isEqualTo(FinishReason.MAX_STEPS);

    RunResult next = kit.send("resume-budget", "go");

    assertThat(next.run()).isEqualTo(2);
    assertThat(userTexts("resume-budget", next)).containsExactly("go", "go");
  }
}
