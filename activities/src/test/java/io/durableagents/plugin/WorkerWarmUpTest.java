package io.durableagents.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.testing.TestReplayer;
import io.durableagents.workflow.internal.AgentSessionWorkflowImpl;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The warm-up's recorded session replays against the current workflow code. */
class WorkerWarmUpTest {
  @Test
  void theWarmUpHistoryReplays() throws Exception {
    String json;
    try (InputStream in = WorkerWarmUp.class.getResourceAsStream(WorkerWarmUp.HISTORY)) {
      json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }

    TestReplayer.replay(json, AgentSessionWorkflowImpl.class);
  }

  @Test
  void aWarmUpThatCannotReplay_isLogged_notThrown() {
    try (TestWorkflowEnvironment environment = TestWorkflowEnvironment.newInstance()) {
      // No session workflow registered: the replay fails, as a deadlock or any other stop would.
      Worker worker = environment.newWorker("warm-up", WorkerOptions.newBuilder().build());

      assertThat(WorkerWarmUp.replay(worker)).isFalse();
    }
  }
}
