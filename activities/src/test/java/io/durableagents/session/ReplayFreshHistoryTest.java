package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.RunStatus;
import io.durableagents.workflow.internal.AgentSessionWorkflowImpl;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.WorkflowReplayer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs a tool-using session of two runs, fetches its history and replays it with the current
 * workflow code. The history is also written to {@code target/histories/}: a new golden history
 * for {@code workflows/src/test/resources/histories/} is taken from there when a behaviour ships.
 */
class ReplayFreshHistoryTest {
  @TempDir Path dir;

  @Test
  void toolUsingSession_replaysWithoutNonDeterminism() throws Exception {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'text':'checking','toolCalls':[{'name':'add','arguments':{'a':2,'b':3}},"
                    + "{'name':'nope','arguments':{}},{'name':'echo','arguments':{'text':'hi'}}]},"
                    + "{'text':'five'},{'text':'again'}]}"),
            10)) {
      RunResult first = kit.send("golden-tool-loop", "add two and three");
      RunResult second = kit.send("golden-tool-loop", "once more");
      assertThat(first.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(second.run()).isEqualTo(2);

      WorkflowExecutionHistory history = kit.client.fetchHistory("golden-tool-loop");
      WorkflowReplayer.replayWorkflowExecution(history, AgentSessionWorkflowImpl.class);

      Path out = Path.of("target", "histories", "tool-loop.json");
      Files.createDirectories(out.getParent());
      Files.writeString(out, history.toJson(true));
    }
  }
}
