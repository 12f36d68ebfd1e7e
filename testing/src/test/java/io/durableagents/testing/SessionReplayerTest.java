package io.durableagents.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.AgentSessionWorkflowImpl;
import io.durableagents.workflow.internal.activity.CheckpointActivities;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SessionReplayerTest {
  private static final String GOLDEN = "tool-loop-activity.json";

  @TempDir Path dir;

  @Test
  void theGoldenHistories_replayWithTheSessionWorkflow() throws IOException {
    SessionReplayReport report =
        SessionReplayer.newInstance().replayFiles(GoldenHistories.directory());

    try (var files = Files.list(GoldenHistories.directory())) {
      long json = files.filter(p -> p.toString().endsWith(".json")).count();
      assertThat(report.results()).hasSize((int) json);
    }
    assertThat(report.failures()).isEmpty();
    assertThat(report.allReplayed()).isTrue();
    assertThat(report.assertAllReplayed()).isSameAs(report);
    assertThat(report.summary()).isEqualTo(report.results().size() + " replayed, 0 failed");
  }

  @Test
  void aResult_namesTheSession_andTheRunOfItsStartedEvent() throws IOException {
    Path file = GoldenHistories.file(GOLDEN);
    SessionReplayResult result = SessionReplayer.newInstance().replayFiles(file).results().get(0);

    assertThat(result.workflowId()).isEqualTo("golden-tool-loop");
    assertThat(result.runId()).isEqualTo("340dbc38-da8d-4a4c-b76f-357d3458bfb5");
    assertThat(result.source()).isEqualTo(file.toString());
    assertThat(result.replayed()).isTrue();
    assertThat(result).hasToString("OK   golden-tool-loop 340dbc38-da8d-4a4c-b76f-357d3458bfb5");
  }

  /**
   * The negative canary: the same history fails against a workflow whose first command differs, so
   * a replay check that passes means something.
   */
  @Test
  void canary_aWorkflowThatSchedulesADifferentFirstCommand_isReportedAsAFailure()
      throws IOException {
    WorkflowExecutionHistory history =
        WorkflowExecutionHistory.fromJson(Files.readString(GoldenHistories.file(GOLDEN)));

    SessionReplayResult unchanged = SessionReplayer.newInstance().replay(history);
    SessionReplayResult changed =
        SessionReplayer.newInstance(CheckpointFirstWorkflow.class).replay(history);

    assertThat(unchanged.replayed()).as(unchanged.failure()).isTrue();
    assertThat(changed.replayed()).isFalse();
    assertThat(changed.workflowId()).isEqualTo("golden-tool-loop");
    assertThat(changed.failure())
        .startsWith("NonDeterministicException: [TMPRL1100]")
        .contains("during replay")
        .doesNotContain("\n");
  }

  @Test
  void allFailures_areListed_notOnlyTheFirst() throws IOException {
    SessionReplayReport report =
        SessionReplayer.newInstance(CheckpointFirstWorkflow.class)
            .replayFiles(GoldenHistories.file(GOLDEN), GoldenHistories.file("approvals.json"));

    assertThat(report.results()).hasSize(2);
    assertThat(report.failures())
        .extracting(SessionReplayResult::workflowId)
        .containsExactly("golden-tool-loop", "golden-approvals");
    assertThat(report.allReplayed()).isFalse();
    assertThatThrownBy(report::assertAllReplayed)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("0 replayed, 2 failed")
        .hasMessageContaining("FAIL golden-tool-loop ")
        .hasMessageContaining("FAIL golden-approvals ")
        .hasMessageContaining("NonDeterministicException");
  }

  @Test
  void aFileThatIsNotAHistory_isAFailure_namedByTheFile() throws IOException {
    Path broken = Files.writeString(dir.resolve("broken.json"), "{\"events\": [");

    SessionReplayReport report =
        SessionReplayer.newInstance().replayFiles(broken, GoldenHistories.file(GOLDEN));

    assertThat(report.results())
        .extracting(SessionReplayResult::replayed)
        .containsExactly(false, true);
    SessionReplayResult failure = report.failures().get(0);
    assertThat(failure.workflowId()).isEqualTo("broken.json");
    assertThat(failure.runId()).isEqualTo("-");
    assertThat(failure.failure()).startsWith("not a workflow history: ");
  }

  @Test
  void aMissingFile_orAnEmptyDirectory_isAnError_namingIt() {
    Path missing = dir.resolve("missing.json");
    assertThatThrownBy(() -> SessionReplayer.newInstance().replayFiles(missing))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining("missing.json");
    assertThatThrownBy(() -> SessionReplayer.newInstance().replayFiles(dir))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(dir.toString());
  }

  @Test
  void histories_exportedByTheSdk_replayLikeTheFiles() throws IOException {
    WorkflowExecutionHistory history =
        WorkflowExecutionHistory.fromJson(Files.readString(GoldenHistories.file(GOLDEN)));
    Path exported = Files.writeString(dir.resolve("exported.json"), history.toJson(true));

    SessionReplayReport report = SessionReplayer.newInstance().replay(List.of(history));

    assertThat(report.results()).extracting(SessionReplayResult::replayed).containsExactly(true);
    assertThat(SessionReplayer.newInstance().replayFiles(exported).allReplayed()).isTrue();
  }

  /** Saves a checkpoint before anything else: a first command no recorded session has. */
  public static class CheckpointFirstWorkflow extends AgentSessionWorkflowImpl {
    @WorkflowInit
    public CheckpointFirstWorkflow(SessionStart start) {
      super(start);
    }

    @Override
    public RunResult run(SessionStart start) {
      Workflow.newActivityStub(
              CheckpointActivities.class,
              ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(5)).build())
          .saveCheckpoint(
              new CheckpointSave(
                  null, null, null, 0, 0, null, null, 0, List.of(), null, null, 0, List.of(), null,
                  null, null));
      return super.run(start);
    }
  }
}
