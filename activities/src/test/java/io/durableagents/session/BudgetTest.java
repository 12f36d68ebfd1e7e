package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.conversation.FinishReason;
import io.durableagents.workflow.RunResult;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Per-run budgets. The cacheless variants replay the whole history on every workflow task, as a
 * restarted worker does: the budget left is the one the history says, never a fresh one.
 */
class BudgetTest {
  private static final String HUNDRED_TOKEN_TURNS =
      "{'turns':["
          + "{'toolCalls':[{'name':'echo','arguments':{'text':'x'}}],'usage':{'inputTokens':80,'outputTokens':20}},"
              .repeat(6)
          + "{'text':'end'}]}";

  @TempDir Path dir;

  private static WorkerFactoryOptions.Builder worker(boolean cacheless) {
    WorkerFactoryOptions.Builder options = WorkerFactoryOptions.newBuilder();
    return cacheless ? options.setWorkflowCacheSize(0) : options;
  }

  @ParameterizedTest(name = "cacheless={0}")
  @ValueSource(booleans = {false, true})
  void maxTokens_stopsBeforeTheNextModelCallOnceReached(boolean cacheless) {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of(HUNDRED_TOKEN_TURNS),
            a -> a.setMaxSteps(20).setMaxTokens(250),
            worker(cacheless))) {
      RunResult result = kit.send("tokens-1", "go");

      assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(result.finishReason()).isEqualTo(FinishReason.MAX_TOKENS);
      assertThat(result.steps()).isEqualTo(3); // 100, 200, 300 >= 250: no fourth call
      assertThat(result.usage().total()).isEqualTo(300);
      assertThat(kit.store.history("tokens-1", 1).get(0).finishReason())
          .isEqualTo(FinishReason.MAX_TOKENS);

      // The next run gets its own budget; the session totals keep counting.
      RunResult next = kit.send("tokens-1", "again");
      assertThat(next.steps()).isEqualTo(3);
      assertThat(kit.session("tokens-1").status().usage().total()).isEqualTo(600);
    }
  }

  @ParameterizedTest(name = "cacheless={0}")
  @ValueSource(booleans = {false, true})
  void maxSteps_holdsUnderReplay(boolean cacheless) {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir, Scripts.of(HUNDRED_TOKEN_TURNS), a -> a.setMaxSteps(4), worker(cacheless))) {
      RunResult result = kit.send("steps-1", "go");
      assertThat(result.finishReason()).isEqualTo(FinishReason.MAX_STEPS);
      assertThat(result.steps()).isEqualTo(4);
      assertThat(kit.effects).hasSize(4);
    }
  }

  @Test
  void runTimeout_failsTheRunWithTimeout_andCancelsTheToolInFlight() {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'slow','arguments':{'ms':4000}}]},{'text':'next time'}]}"),
            a -> a.setMaxSteps(10).setRunTimeout(Duration.ofSeconds(1)),
            worker(false))) {
      RunResult result = kit.send("timeout-1", "go");

      assertThat(result.status()).isEqualTo(RunStatus.FAILED);
      assertThat(result.finishReason()).isEqualTo(FinishReason.TIMEOUT);
      assertThat(result.error().code()).isEqualTo("run_timeout");
      assertThat(result.toolCalls().get(0).result().get("error").asText()).isEqualTo("cancelled");

      RunResult next = kit.send("timeout-1", "again");
      assertThat(next.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(next.text()).isEqualTo("next time");
    }
  }

  @Test
  void runTimeout_doesNotRunWhileWaitingForAnApproval() {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'pay','arguments':{'amount':500}}]},{'text':'paid'}]}"),
            a -> a.setMaxSteps(10).setRunTimeout(Duration.ofMinutes(5)),
            worker(false))) {
      RunResult paused = kit.send("timeout-2", "pay");
      kit.env.sleep(Duration.ofMinutes(30)); // far past the run timeout, within the approval expiry
      kit.session("timeout-2")
          .approve(
              new io.durableagents.workflow.internal.wire.Decision(
                  paused.approval().approvalId(), true, null, "x"));
      RunResult done = kit.attach("timeout-2");
      assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(done.text()).isEqualTo("paid");
    }
  }
}
