package io.durableagents.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.client.Checkpoint;
import io.durableagents.client.HistoryEntry;
import io.durableagents.conversation.Usage;
import io.durableagents.session.RunStatus;
import io.durableagents.session.StepRecord;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class StepPrinterTest {
  @Test
  void aCompaction_isListedWithWhatItReplaced_beforeItsModelTurn() {
    Checkpoint checkpoint =
        Checkpoint.newBuilder()
            .setSessionId("s")
            .setStepIndex(7)
            .setStatus(RunStatus.IN_PROGRESS)
            .setSteps(
                List.of(
                    new StepRecord(
                        StepRecord.COMPACTION,
                        "clear-tool-results",
                        1_000L,
                        1_000L,
                        null,
                        null,
                        "cleared 3 tool results; ~5,200 → 2,100 tokens"),
                    new StepRecord(
                        StepRecord.MODEL,
                        "gpt-4o",
                        1_000L,
                        1_850L,
                        new Usage(2_150, 40),
                        null,
                        null)))
            .build();
    StringWriter text = new StringWriter();

    StepPrinter.printSteps(
        List.of(new HistoryEntry(7, 2_000L, RunStatus.IN_PROGRESS, checkpoint)),
        new PrintWriter(text, true));

    List<String> lines = text.toString().lines().filter(line -> !line.isBlank()).toList();
    assertThat(lines.get(1)).contains("7", "compaction", "clear-tool-results");
    assertThat(lines.get(2)).contains("model", "gpt-4o", "850 ms", "2150 / 40");
    assertThat(lines)
        .contains("compaction at step 7: cleared 3 tool results; ~5,200 → 2,100 tokens")
        .noneMatch(line -> line.contains("streamed before the failure"));
  }
}
