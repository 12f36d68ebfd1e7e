package io.durableagents.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.cli.ExitCodes;
import io.durableagents.client.ProjectionReader;
import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Usage;
import io.durableagents.session.RunStatus;
import io.durableagents.store.AgentStores;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code agents projection prune} asks before it deletes: a dry run that changes nothing, a
 * confirmation at a terminal, {@code --yes} without one, and {@code --yes} for an age under an
 * hour. On a SQLite projection holding a session settled two days ago ("old"), one settled a minute
 * ago ("recent") and one in progress for two days ("running").
 */
class ProjectionPruneCommandTest {
  @TempDir Path dir;
  private String url;

  record Outcome(int exitCode, String out, String err) {}

  @BeforeEach
  void threeSessions() {
    url = "jdbc:sqlite:" + dir.resolve("projection.db");
    long now = System.currentTimeMillis();
    try (CheckpointStore store = CheckpointStore.of(AgentStores.open(url))) {
      save(store, "old", RunStatus.FINISHED, now - Duration.ofDays(2).toMillis());
      save(store, "recent", RunStatus.FINISHED, now - Duration.ofMinutes(1).toMillis());
      save(store, "running", RunStatus.IN_PROGRESS, now - Duration.ofDays(2).toMillis());
    }
  }

  private static void save(CheckpointStore store, String session, RunStatus status, long savedAt) {
    store.saveCheckpoint(
        new CheckpointSave(
            session,
            "exec-" + session,
            "concierge",
            1,
            0,
            status,
            status == RunStatus.FINISHED ? FinishReason.STOP : null,
            0,
            List.of(Message.user("hello " + session)),
            Usage.ZERO,
            "fp",
            savedAt,
            List.of(),
            null,
            null,
            null));
  }

  /** Runs the prune at a terminal answering {@code answer}, or without one when null. */
  private Outcome prune(String answer, String... args) {
    CommandLine commandLine = AgentsMain.commandLine(Map.of());
    ProjectionCommand.Prune prune =
        (ProjectionCommand.Prune)
            commandLine
                .getSubcommands()
                .get("projection")
                .getSubcommands()
                .get("prune")
                .getCommandSpec()
                .userObject();
    prune.interactive = answer != null;
    prune.answers = new BufferedReader(new StringReader(answer == null ? "" : answer + "\n"));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    String[] all = new String[args.length + 4];
    all[0] = "projection";
    all[1] = "prune";
    System.arraycopy(args, 0, all, 2, args.length);
    all[args.length + 2] = "--projection";
    all[args.length + 3] = url;
    return new Outcome(commandLine.execute(all), out.toString(), err.toString());
  }

  private List<String> sessionsLeft() {
    try (ProjectionReader reader = ProjectionReader.open(url)) {
      return reader
          .sessions(io.durableagents.client.SessionFilter.ALL, null, 10)
          .sessions()
          .stream()
          .map(row -> row.sessionId())
          .sorted()
          .toList();
    }
  }

  @Test
  void dryRun_listsWhatWouldGo_andRemovesNothing() {
    Outcome dry = prune(null, "--older-than", "1d", "--dry-run");

    assertThat(dry.exitCode()).as(dry.err()).isZero();
    assertThat(dry.out())
        .contains("Would remove 1 settled session not updated since")
        .contains("  old  finished  ")
        .contains("history entries saved before")
        .doesNotContain("recent")
        .doesNotContain("running");
    assertThat(sessionsLeft()).containsExactly("old", "recent", "running");
  }

  @Test
  void withoutATerminal_aPruneNeedsYes() {
    Outcome refused = prune(null, "--older-than", "1d");

    assertThat(refused.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(refused.err()).contains("Pruning deletes rows for good: add --yes");
    assertThat(sessionsLeft()).containsExactly("old", "recent", "running");

    Outcome pruned = prune(null, "--older-than", "1d", "--yes");

    assertThat(pruned.exitCode()).as(pruned.err()).isZero();
    assertThat(pruned.out()).contains("1 session,");
    assertThat(sessionsLeft()).containsExactly("recent", "running");
  }

  @Test
  void atATerminal_onlyAYesPrunes() {
    Outcome declined = prune("n", "--older-than", "1d");

    assertThat(declined.exitCode()).isEqualTo(ExitCodes.ERROR);
    assertThat(declined.out())
        .contains("  old  finished  ", "Prune them? [y/N]", "Nothing pruned.");
    assertThat(sessionsLeft()).containsExactly("old", "recent", "running");

    Outcome confirmed = prune("y", "--older-than", "1d");

    assertThat(confirmed.exitCode()).as(confirmed.err()).isZero();
    assertThat(confirmed.out()).contains("Pruned what is older than 1d");
    assertThat(sessionsLeft()).containsExactly("recent", "running");
  }

  @Test
  void anAgeUnderAnHour_needsYes_evenAtATerminal() {
    for (String age : new String[] {"0s", "59m"}) {
      Outcome refused = prune("y", "--older-than", age);

      assertThat(refused.exitCode()).isEqualTo(ExitCodes.USAGE);
      assertThat(refused.err())
          .contains("--older-than " + age + " is under 1h")
          .contains("Add --yes to prune anyway");
    }
    assertThat(sessionsLeft()).containsExactly("old", "recent", "running");

    Outcome everything = prune(null, "--older-than", "0s", "--yes");

    assertThat(everything.exitCode()).as(everything.err()).isZero();
    assertThat(sessionsLeft()).containsExactly("running");
  }
}
