package io.durableagents.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.testing.SessionReplayer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code agents replay FILE...} on the golden histories of module {@code workflows}. */
class ReplayCommandTest {
  private record Outcome(int exitCode, String out, String err) {}

  private static final Path GOLDEN =
      Path.of("..", "workflows", "src", "test", "resources", "histories")
          .toAbsolutePath()
          .normalize();

  @TempDir Path dir;

  private Outcome replay(String... args) throws IOException {
    Path config = Files.writeString(dir.resolve("temporal.toml"), "");
    CommandLine commandLine =
        AgentsMain.commandLine(Map.of("TEMPORAL_CONFIG_FILE", config.toString()));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    String[] all = new String[args.length + 1];
    all[0] = "replay";
    System.arraycopy(args, 0, all, 1, args.length);
    return new Outcome(commandLine.execute(all), out.toString(), err.toString());
  }

  @Test
  void theGoldenHistories_replay_oneOkLineEach_andExit0() throws IOException {
    long files;
    try (var listing = Files.list(GOLDEN)) {
      files = listing.filter(p -> p.toString().endsWith(".json")).count();
    }

    Outcome outcome = replay(GOLDEN.toString());

    assertThat(outcome.exitCode()).as(outcome.err() + outcome.out()).isZero();
    assertThat(outcome.out().lines().filter(l -> l.startsWith("OK   "))).hasSize((int) files);
    assertThat(outcome.out())
        .contains("OK   golden-tool-loop 340dbc38-da8d-4a4c-b76f-357d3458bfb5")
        .doesNotContain("FAIL")
        .endsWith(files + " replayed, 0 failed." + System.lineSeparator());
  }

  /**
   * A session cancelled while it waited for an approval: the SDK's {@code Workflow.await} with a
   * timeout cancels its timer, whose failed promise nobody reads, and the SDK used to log that with
   * a stack trace at the end of each such replay (temporalio/sdk-java#631).
   */
  @Test
  void aRunCancelledWhileAwaitingApproval_replaysInOneLine_withoutWarningsOnStderr()
      throws IOException {
    Path recorded =
        Path.of("src", "test", "resources", "histories", "cancelled-while-awaiting-approval.json");
    PrintStream stderr = System.err;
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    Outcome outcome;
    System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8));
    try {
      outcome = replay(recorded.toString());
    } finally {
      System.setErr(stderr);
    }

    assertThat(outcome.exitCode()).as(outcome.err() + outcome.out()).isZero();
    assertThat(outcome.out().lines().toList())
        .containsExactly(
            "OK   chat-2 01a250d0-e77a-7e90-ac1e-96ce4e136503", "1 replayed, 0 failed.");
    assertThat(logged.toString(StandardCharsets.UTF_8))
        .doesNotContain("WARN")
        .doesNotContain("never accessed")
        .doesNotContain("\tat ");
  }

  @Test
  void anIncompatibleAndACorruptedHistory_areFailLines_andExit1() throws IOException {
    // The recorded model turns under another activity type: the workflow schedules ModelTurn.
    String golden = Files.readString(GOLDEN.resolve("tool-loop-activity.json"));
    assertThat(golden).contains("\"agents.ModelTurn\"");
    Path incompatible =
        Files.writeString(
            dir.resolve("incompatible.json"),
            golden.replace("\"agents.ModelTurn\"", "\"agents.RenamedTurn\""));
    Path corrupted = Files.writeString(dir.resolve("corrupted.json"), "{\"events\": [ {");

    Outcome outcome =
        replay(
            GOLDEN.resolve("approvals.json").toString(),
            incompatible.toString(),
            corrupted.toString());

    assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(1);
    assertThat(outcome.out().lines().toList())
        .hasSize(4)
        .satisfiesExactly(
            ok -> assertThat(ok).startsWith("OK   golden-approvals "),
            fail ->
                assertThat(fail)
                    .startsWith(
                        "FAIL golden-tool-loop 340dbc38-da8d-4a4c-b76f-357d3458bfb5:"
                            + " NonDeterministicException: ")
                    .contains("'name: \"agents.RenamedTurn\" '")
                    .doesNotContain("\tat "),
            fail -> assertThat(fail).startsWith("FAIL corrupted.json -: not a workflow history: "),
            summary -> assertThat(summary).isEqualTo("1 replayed, 2 failed."));
  }

  @Test
  void aNonUtf8File_isAFailLineNamingIt_andTheOtherFilesStillReplay() throws IOException {
    byte[] latin1 = "{\"events\": [\"caf\u00e9\"]}".getBytes(StandardCharsets.ISO_8859_1);
    Path notUtf8 = Files.write(dir.resolve("latin1.json"), latin1);

    Outcome outcome =
        replay(
            notUtf8.toString(),
            GOLDEN.resolve("approvals.json").toString(),
            GOLDEN.resolve("tool-loop-activity.json").toString());

    assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(1);
    assertThat(outcome.out().lines().toList())
        .satisfiesExactly(
            fail ->
                assertThat(fail)
                    .isEqualTo(
                        "FAIL latin1.json -: cannot read "
                            + notUtf8
                            + ": not UTF-8 text (invalid byte at offset 16)"),
            ok -> assertThat(ok).startsWith("OK   golden-approvals "),
            ok -> assertThat(ok).startsWith("OK   golden-tool-loop "),
            summary -> assertThat(summary).isEqualTo("2 replayed, 1 failed."));
  }

  @Test
  void aFileOverTheLimit_isRefusedByItsSize_unread() throws IOException {
    Path huge = dir.resolve("huge.json");
    try (RandomAccessFile sparse = new RandomAccessFile(huge.toFile(), "rw")) {
      sparse.setLength(SessionReplayer.MAX_HISTORY_FILE_BYTES + 1);
    }

    Outcome outcome = replay(huge.toString(), GOLDEN.resolve("approvals.json").toString());

    assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(1);
    assertThat(outcome.out().lines().toList())
        .satisfiesExactly(
            fail ->
                assertThat(fail)
                    .isEqualTo(
                        "FAIL huge.json -: cannot read "
                            + huge
                            + ": larger than 256 MiB, the limit of a history file; not read"),
            ok -> assertThat(ok).startsWith("OK   golden-approvals "),
            summary -> assertThat(summary).isEqualTo("1 replayed, 1 failed."));
  }

  @Test
  @EnabledOnOs({OS.LINUX, OS.MAC})
  void anEndlessFile_isReadOnlyUpToTheLimit_andIsAFailLine() throws IOException {
    long started = System.nanoTime();

    Outcome outcome = replay("/dev/zero");

    assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(1);
    assertThat(outcome.out().lines().toList())
        .containsExactly(
            "FAIL zero -: cannot read /dev/zero: larger than 256 MiB, the limit of a history"
                + " file; not read",
            "0 replayed, 1 failed.");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
  }

  @Test
  void aMissingFile_isAUsageError_namingIt() throws IOException {
    Path missing = dir.resolve("nope.json");

    Outcome outcome = replay(GOLDEN.resolve("approvals.json").toString(), missing.toString());

    assertThat(outcome.exitCode()).isEqualTo(2);
    assertThat(outcome.err()).contains("No such history file: " + missing);
    assertThat(outcome.out()).isEmpty();
  }

  @Test
  void noHistories_orFilesAndAServer_orAnEmptyDirectory_areUsageErrors() throws IOException {
    Outcome none = replay();
    assertThat(none.exitCode()).isEqualTo(2);
    assertThat(none.err()).contains("Missing histories");

    Outcome both = replay("--from-server", "--", GOLDEN.toString());
    assertThat(both.exitCode()).isEqualTo(2);
    assertThat(both.err()).contains("not both");

    Path empty = Files.createDirectory(dir.resolve("empty"));
    Outcome emptyDirectory = replay(empty.toString());
    assertThat(emptyDirectory.exitCode()).isEqualTo(2);
    assertThat(emptyDirectory.err()).contains("No *.json history file in directory " + empty);
  }
}
