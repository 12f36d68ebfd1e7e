package io.durableagents.plugin;

import io.durableagents.workflow.internal.AgentSessionWorkflowImpl;
import io.temporal.testing.WorkflowReplayer;
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

    WorkflowReplayer.replayWorkflowExecution(json, AgentSessionWorkflowImpl.class);
  }
}
