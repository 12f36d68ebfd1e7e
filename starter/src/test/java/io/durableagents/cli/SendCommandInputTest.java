package io.durableagents.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.workflow.Limits;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
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
 * Where {@code agents send} takes its message from, and the checks made before it connects: the
 * Temporal address is a closed port, so a command that got as far as connecting would say "Cannot
 * reach Temporal" (exit 1) instead of the refusal asserted (exit 2).
 */
class SendCommandInputTest {
  @TempDir Path dir;
  private String nowhere;

  @BeforeEach
  void closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      nowhere = "127.0.0.1:" + socket.getLocalPort();
    }
  }

  /** The {@code send} command picocli builds from {@code args}, parsed but not run. */
  private static SendCommand parsed(String... args) {
    CommandLine commandLine = AgentsCli.commandLine(Map.of());
    CommandLine.ParseResult result = commandLine.parseArgs(args);
    return (SendCommand) result.subcommand().commandSpec().userObject();
  }

  private CliHarness.Outcome send(byte[] stdin, String... args) {
    Path noProfiles = dir.resolve("no-profiles.toml");
    try {
      Files.writeString(noProfiles, "");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    CommandLine commandLine =
        AgentsCli.commandLine(Map.of("TEMPORAL_CONFIG_FILE", noProfiles.toString()));
    SendCommand send =
        (SendCommand) commandLine.getSubcommands().get("send").getCommandSpec().userObject();
    send.stdin = new ByteArrayInputStream(stdin);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    String[] all = new String[args.length + 3];
    all[0] = "send";
    System.arraycopy(args, 0, all, 1, args.length);
    all[args.length + 1] = "--temporal";
    all[args.length + 2] = nowhere;
    return new CliHarness.Outcome(commandLine.execute(all), out.toString(), err.toString());
  }

  private CliHarness.Outcome send(String... args) {
    return send(new byte[0], args);
  }

  @Test
  void anArgumentStartingWithAt_isTheMessage_neverAFileToRead() throws IOException {
    Path secret = Files.writeString(dir.resolve("secret.txt"), "the file's content");

    assertThat(parsed("send", "s1", "@" + secret).text).isEqualTo("@" + secret);
    assertThat(parsed("send", "s1", "@").text).isEqualTo("@");
    assertThat(parsed("send", "@" + secret, "hi").session).isEqualTo("@" + secret);
  }

  @Test
  void tooLongAMessage_isRefusedBeforeConnecting_withExit2() throws IOException {
    Path big = Files.writeString(dir.resolve("big.txt"), "x".repeat(Limits.INPUT_CHARS + 1));

    CliHarness.Outcome outcome = send("s1", "--input-file", big.toString());

    assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(outcome.err().strip())
        .isEqualTo(
            "The input is "
                + (Limits.INPUT_CHARS + 1)
                + " characters, over the limit of "
                + Limits.INPUT_CHARS
                + " per send; attach large content as an artifact instead.");
    assertThat(outcome.err()).doesNotContain("worker").doesNotContain("Cannot reach");
  }

  @Test
  void aTenMegabyteFile_isRefusedWithoutReadingIt() throws IOException {
    Path huge = dir.resolve("huge.txt");
    Files.write(huge, new byte[10 * 1024 * 1024]);

    CliHarness.Outcome outcome = send("s1", "--input-file", huge.toString());

    assertThat(outcome.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(outcome.err().strip())
        .isEqualTo(
            "The message in --input-file "
                + huge
                + " (10485760 bytes) is over the limit of "
                + Limits.INPUT_CHARS
                + " characters per send; attach large content as an artifact instead.");
  }

  @Test
  void controlCharactersOverTheRequestSize_areRefusedBeforeConnecting() throws IOException {
    Path controls =
        Files.writeString(dir.resolve("controls.txt"), "\u0001".repeat(Limits.INPUT_CHARS));

    CliHarness.Outcome outcome = send("s1", "--input-file", controls.toString());

    assertThat(outcome.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(outcome.err())
        .contains("bytes serialized, over the limit of " + Limits.REQUEST_BYTES);
  }

  @Test
  void standardInput_isReadBounded() {
    CliHarness.Outcome tooMuch = send(new byte[MessageInput.MAX_BYTES + 10], "s1", "-");

    assertThat(tooMuch.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(tooMuch.err())
        .contains("The message in standard input (more than " + MessageInput.MAX_BYTES + " bytes)");

    CliHarness.Outcome fine =
        send("hello from stdin".getBytes(StandardCharsets.UTF_8), "s1", "--input-file", "-");

    assertThat(fine.exitCode()).as(fine.err()).isEqualTo(ExitCodes.ERROR);
    assertThat(fine.err()).startsWith("Cannot reach Temporal at " + nowhere); // passed every check
  }

  @Test
  void badSources_areUsageErrorsNamingThem() throws IOException {
    Path latin1 = dir.resolve("latin1.txt");
    Files.write(latin1, new byte[] {'c', 'a', 'f', (byte) 0xe9});
    Path empty = Files.writeString(dir.resolve("empty.txt"), "");
    Path missing = dir.resolve("missing.txt");

    assertUsage(
        send("s1", "hi", "--input-file", latin1.toString()),
        "Give the message either as TEXT or with --input-file, not both.");
    assertUsage(
        send("s1"),
        "Missing the message: give TEXT, --input-file PATH, or - to read standard input.");
    assertUsage(
        send("s1", "--input-file", dir.toString()),
        "--input-file " + dir + " is a directory, not a file.");
    assertUsage(
        send("s1", "--input-file", missing.toString()),
        "--input-file " + missing + " does not exist.");
    assertUsage(
        send("s1", "--input-file", latin1.toString()),
        "--input-file " + latin1 + " is not UTF-8 text.");
    assertUsage(
        send("s1", "--input-file", empty.toString()),
        "--input-file "
            + empty
            + " is empty. (To wait for the run in progress without sending anything, send \"\".)");
    assertUsage(send(new byte[] {(byte) 0xff}, "s1", "-"), "standard input is not UTF-8 text.");
  }

  @Test
  void aRunConfigWithMoreAfterItsObject_isRefused_notCutShort() {
    CliHarness.Outcome two = send("s1", "hi", "--run-config", "{\"a\":1} {\"b\":2}");
    CliHarness.Outcome trailing = send("s1", "hi", "--run-config", "{\"a\":1} x");

    assertThat(two.exitCode()).as(two.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(two.err())
        .startsWith("--run-config must be one JSON object; more follows it at column 9");
    assertThat(trailing.exitCode()).as(trailing.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(trailing.err()).startsWith("--run-config ").doesNotContain("Cannot reach");
  }

  @Test
  void aConcurrencyKeyOverTheLimit_isRefusedBeforeConnecting_withExit2() {
    CliHarness.Outcome tooLong = send("s1", "hi", "--concurrency-key", "k".repeat(201));
    CliHarness.Outcome fine = send("s1", "hi", "--concurrency-key", "customer:42");

    assertUsage(
        tooLong,
        "Invalid concurrency key: use 1-200 characters, no control characters (got 201"
            + " characters).");
    assertThat(fine.exitCode()).as(fine.err()).isEqualTo(ExitCodes.ERROR);
    assertThat(fine.err()).startsWith("Cannot reach Temporal at " + nowhere); // passed every check
  }

  private static void assertUsage(CliHarness.Outcome outcome, String message) {
    assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(outcome.err().strip()).isEqualTo(message);
    assertThat(outcome.out()).isEmpty();
  }

  @Test
  void messageInput_takesTextAsGiven_andFilesAndStdinVerbatim() throws IOException {
    Path file = Files.writeString(dir.resolve("m.txt"), "line one\nline two ✓\n");

    assertThat(MessageInput.resolve("@" + file, null, InputStreamOf.EMPTY)).isEqualTo("@" + file);
    assertThat(MessageInput.resolve(null, file.toString(), InputStreamOf.EMPTY))
        .isEqualTo("line one\nline two ✓\n");
    assertThat(
            MessageInput.resolve(
                "-", null, new ByteArrayInputStream("from stdin".getBytes(StandardCharsets.UTF_8))))
        .isEqualTo("from stdin");
    assertThat(MessageInput.resolve("", null, InputStreamOf.EMPTY)).isEmpty();
  }

  private static final class InputStreamOf {
    static final ByteArrayInputStream EMPTY = new ByteArrayInputStream(new byte[0]);
  }
}
