package io.durableagents.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.workflow.Limits;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Arguments the CLI refuses before it connects or reads anything: Temporal is a closed port and the
 * projection a file that does not exist, so a command that got past its checks would fail with exit
 * 1 ("Cannot reach Temporal", or a projection error) instead of the refusal asserted.
 */
class CliEdgesTest {
  private static final int HUGE = 120 * 1024;

  @TempDir Path dir;
  private String nowhere;
  private String noProjection;

  @BeforeEach
  void closedPortAndMissingProjection() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      nowhere = "127.0.0.1:" + socket.getLocalPort();
    }
    noProjection = "jdbc:sqlite:" + dir.resolve("missing.db");
  }

  /** Runs {@code args} plus the closed port, with {@code stdin} as standard input. */
  private CliHarness.Outcome run(byte[] stdin, String... args) {
    Path noProfiles = dir.resolve("no-profiles.toml");
    try {
      Files.writeString(noProfiles, "");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    CommandLine commandLine =
        AgentsCli.commandLine(Map.of("TEMPORAL_CONFIG_FILE", noProfiles.toString()));
    ((SendCommand) commandLine.getSubcommands().get("send").getCommandSpec().userObject()).stdin =
        new ByteArrayInputStream(stdin);
    ((ForkCommand) commandLine.getSubcommands().get("fork").getCommandSpec().userObject()).stdin =
        new ByteArrayInputStream(stdin);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    String[] all = new String[args.length + 2];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--temporal";
    all[args.length + 1] = nowhere;
    return new CliHarness.Outcome(commandLine.execute(all), out.toString(), err.toString());
  }

  private CliHarness.Outcome run(String... args) {
    return run(new byte[0], args);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static void assertUsage(CliHarness.Outcome outcome, String message) {
    assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(outcome.err().strip()).isEqualTo(message);
    assertThat(outcome.out()).isEmpty();
  }

  private void assertPassedTheChecks(CliHarness.Outcome outcome) {
    assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(ExitCodes.ERROR);
    assertThat(outcome.err()).startsWith("Cannot reach Temporal at " + nowhere);
  }

  // ---- 1. whitespace is no message ---------------------------------------------------------

  @Test
  void whitespaceAlone_isRefused_asText_fromStdin_andFromAFile() throws IOException {
    String hint = " (To wait for the run in progress without sending anything, send \"\".)";
    Path blankFile = Files.writeString(dir.resolve("blank.txt"), " \t\n");

    assertUsage(
        run("send", "s1", "   "),
        "TEXT is only whitespace (3 characters); nothing was sent." + hint);
    assertUsage(
        run(utf8("\n"), "send", "s1", "-"),
        "standard input is only whitespace (1 character); nothing was sent." + hint);
    assertUsage(
        run("send", "s1", "--input-file", blankFile.toString()),
        "--input-file "
            + blankFile
            + " is only whitespace (3 characters); nothing was sent."
            + hint);
    // Text around whitespace is a message; "" still waits for the run in progress.
    assertPassedTheChecks(run(utf8(" hi\n"), "send", "s1", "-"));
    assertPassedTheChecks(run("send", "s1", ""));
  }

  // ---- 2. history --limit ------------------------------------------------------------------

  @Test
  void historyLimitZero_isRefusedLikeANegativeOne_notReadAsAll() {
    for (String limit : new String[] {"0", "-3"}) {
      CliHarness.Outcome outcome =
          run("history", "s1", "--limit", limit, "--projection", noProjection);

      assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(ExitCodes.USAGE);
      assertThat(outcome.err())
          .startsWith(
              "--limit must be at least 1, got " + limit + " (leave it out for every kept entry).");
    }
    // Left out it reads (here: fails on the missing projection, exit 1).
    assertThat(run("history", "s1", "--projection", noProjection).exitCode())
        .isEqualTo(ExitCodes.ERROR);
  }

  // ---- 3. --max-steps range and start-only options ----------------------------------------

  @Test
  void maxStepsOutOfRange_isRefusedNamingTheRange() {
    for (int steps : new int[] {0, Limits.MAX_STEPS + 1}) {
      CliHarness.Outcome outcome = run("send", "s1", "hi", "--max-steps", String.valueOf(steps));

      assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(ExitCodes.USAGE);
      assertThat(outcome.err())
          .startsWith("--max-steps must be 1 to " + Limits.MAX_STEPS + ", got " + steps + ".");
    }
    assertPassedTheChecks(run("send", "s1", "hi", "--max-steps", String.valueOf(Limits.MAX_STEPS)));
  }

  @Test
  void startOptions_withAnEmptyMessage_areCheckedAgainstTheSession_likeASendsAre() {
    // Whether the session was started with them is the session's to answer (SessionLifecycleIT).
    assertPassedTheChecks(run("send", "s1", "", "--agent", "concierge", "--max-steps", "3"));
  }

  @Test
  void runOptions_withAnEmptyMessage_areRefused_itStartsNoRun() {
    assertUsage(
        run("send", "s1", "", "--concurrency-key", "k"),
        "--concurrency-key is an option of the run a message starts; an empty message starts"
            + " nothing (it waits for the run in progress).");
    assertUsage(
        run("send", "s1", "", "--run-config", "{}", "--idempotency-key", "i-1"),
        "--run-config and --idempotency-key are options of the run a message starts; an empty"
            + " message starts nothing (it waits for the run in progress).");
    assertPassedTheChecks(run("send", "s1", "hi", "--concurrency-key", "k"));
  }

  @Test
  void aMessageStartingWithADash_getsTheDoubleDashHint() {
    CliHarness.Outcome outcome = run("send", "s1", "-5 degrees?");

    assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(outcome.err())
        .contains("A message that starts with '-' goes after --: agents send SESSION -- TEXT");
  }

  @Test
  void aRunConfigNamingAFieldTwice_isRefused_notReadAsItsLastValue() {
    CliHarness.Outcome outcome = run("send", "s1", "hi", "--run-config", "{\"a\":1,\"a\":2}");

    assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(outcome.err())
        .startsWith("--run-config names a field twice: Duplicate field 'a'; give each field once.");
  }

  // ---- 5. blank decider --------------------------------------------------------------------

  @Test
  void aBlankDecider_isRefused_beforeConnecting() {
    assertUsage(
        run("approve", "s1", "a-1", "--by", ""),
        "--by needs a name, got an empty one (leave it out to use the user name).");
    assertUsage(
        run("reject", "s1", "a-1", "--by", "  "),
        "--by needs a name, got only whitespace (leave it out to use the user name).");
    assertPassedTheChecks(run("approve", "s1", "a-1", "--by", "ops"));
  }

  // ---- 6. fork --append-input in send's forms ----------------------------------------------

  @Test
  void forkAppendInput_takesSendsForms_textFileAndStdin() throws IOException {
    Path file = Files.writeString(dir.resolve("append.txt"), "from a file ✓\n");

    assertThat(appendInput(new byte[0], "--append-input", "as given")).isEqualTo("as given");
    assertThat(appendInput(new byte[0], "--append-input-file", file.toString()))
        .isEqualTo("from a file ✓\n");
    assertThat(appendInput(utf8("from stdin"), "--append-input", "-")).isEqualTo("from stdin");
    assertThat(appendInput(utf8("from stdin too"), "--append-input-file", "-"))
        .isEqualTo("from stdin too");
    assertThat(appendInput(new byte[0])).isNull();
  }

  @Test
  void forkAppendInput_problemsAreUsageErrors_namingTheOption() throws IOException {
    Path missing = dir.resolve("missing.txt");

    assertUsage(
        run("fork", "s1", "--from-step", "1", "--append-input-file", missing.toString()),
        "--append-input-file " + missing + " does not exist.");
    assertUsage(
        run("fork", "s1", "--from-step", "1", "--append-input", "x", "--append-input-file", "-"),
        "Give the message either as --append-input or with --append-input-file, not both.");
    assertUsage(
        run(utf8("\n\n"), "fork", "s1", "--from-step", "1", "--append-input", "-"),
        "standard input is only whitespace (2 characters); nothing was sent.");
    assertPassedTheChecks(run("fork", "s1", "--from-step", "1", "--append-input", "go on"));
  }

  /** The message {@code fork} appends, given these options. */
  private static String appendInput(byte[] stdin, String... options) {
    CommandLine commandLine = AgentsCli.commandLine(Map.of());
    String[] args = new String[options.length + 4];
    args[0] = "fork";
    args[1] = "s1";
    args[2] = "--from-step";
    args[3] = "1";
    System.arraycopy(options, 0, args, 4, options.length);
    ForkCommand fork =
        (ForkCommand) commandLine.parseArgs(args).subcommand().commandSpec().userObject();
    fork.stdin = new ByteArrayInputStream(stdin);
    return fork.appendInput();
  }

  // ---- 7. huge values are quoted short -----------------------------------------------------

  @Test
  void aHugeBadArgument_isQuotedAsAShortPrefixWithItsLength() {
    String huge = "x".repeat(HUGE);
    String shown = "x".repeat(Shown.MAX_CHARS) + "… (1228"; // the address has 2 more: ":0"
    CliHarness.Outcome[] outcomes = {
      run("send", "s1", "hi", "--max-steps", huge),
      run("send", "s1", "hi", "--max-steps=" + huge),
      run("send", "s1", "hi", huge),
      run("sessions", "--status", huge),
      run("fork", "s1", "--from-step", "1", "--tool-result", huge),
      run("fork", "s1", "--from-step", "1", "--append-input-file", huge),
      run("send", "s1", "--input-file", huge),
      CliHarness.run("send", "s1", "hi", "--temporal", huge + ":0"),
    };
    for (CliHarness.Outcome outcome : outcomes) {
      assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(ExitCodes.USAGE);
      assertThat(outcome.err()).contains(shown).doesNotContain("x".repeat(Shown.MAX_CHARS + 1));
      assertThat(outcome.err().length()).as(outcome.err()).isLessThan(600);
    }
  }

  @Test
  void shown_cutsBetweenCodePoints_andEscapesControls() {
    String emoji = "😀".repeat(Shown.MAX_CHARS);

    assertThat(Shown.value("short\u0007")).isEqualTo("short\\u0007");
    assertThat(Shown.value("y".repeat(Shown.MAX_CHARS))).isEqualTo("y".repeat(Shown.MAX_CHARS));
    assertThat(Shown.value(emoji))
        .isEqualTo("😀".repeat(Shown.MAX_CHARS / 2) + "… (" + emoji.length() + " chars)");
  }
}
