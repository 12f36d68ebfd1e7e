package io.durableagents.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.app.cli.AgentsMain;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code agents console}: options that cannot give a safe console are usage errors (exit 2) before
 * it connects anywhere (the Temporal address here is unreachable, so a connection would fail with
 * exit 1 instead).
 */
class ConsoleCommandTest {
  @TempDir Path dir;

  record Outcome(int exitCode, String err) {}

  @Test
  void anAddressOtherMachinesReach_needsAuthentication() {
    Outcome outcome = execute("console", "--bind", "0.0.0.0");

    assertThat(outcome.exitCode()).isEqualTo(2);
    assertThat(outcome.err())
        .contains("the console binds 0.0.0.0, which other machines can reach")
        .contains("--tokens FILE or --trusted-header HEADER");
  }

  @Test
  void tokensAndATrustedHeader_areTwoWaysToAuthenticate_chooseOne() throws Exception {
    Path tokens = Files.writeString(dir.resolve("tokens"), "alice s3cret\n");

    Outcome outcome =
        execute("console", "--tokens", tokens.toString(), "--trusted-header", "X-Forwarded-User");

    assertThat(outcome.exitCode()).isEqualTo(2);
    assertThat(outcome.err()).contains("choose one");
  }

  @Test
  void aTokensFileLineThatIsNoPair_isNamed() throws Exception {
    Path tokens = Files.writeString(dir.resolve("tokens"), "# approvers\nalice s3cret\nbob\n");

    Outcome outcome = execute("console", "--bind", "0.0.0.0", "--tokens", tokens.toString());

    assertThat(outcome.exitCode()).isEqualTo(2);
    assertThat(outcome.err()).contains("line 3: expected 'APPROVER TOKEN'");
  }

  @Test
  void aMissingTokensFile_isAUsageError() {
    Outcome outcome = execute("console", "--tokens", dir.resolve("none").toString());

    assertThat(outcome.exitCode()).isEqualTo(2);
    assertThat(outcome.err()).contains("cannot read the tokens file");
  }

  @Test
  void aTrustedHeaderThatIsNoHeaderName_isAUsageError() {
    Outcome outcome = execute("console", "--trusted-header", "X User");

    assertThat(outcome.exitCode()).isEqualTo(2);
    assertThat(outcome.err()).contains("not an HTTP header name");
  }

  @Test
  void aLoginTimeoutThatIsNoPositiveDuration_isAUsageError() {
    for (String timeout : List.of("soon", "0s", "-1h")) {
      Outcome outcome = execute("console", "--login-timeout", timeout);

      assertThat(outcome.exitCode()).as(timeout).isEqualTo(2);
      assertThat(outcome.err()).contains("Invalid --login-timeout '" + timeout + "'");
    }
  }

  private static Outcome execute(String... args) {
    CommandLine commandLine = AgentsMain.commandLine(Map.of());
    StringWriter err = new StringWriter();
    commandLine.setErr(new PrintWriter(err, true));
    commandLine.setOut(new PrintWriter(new StringWriter(), true));
    String[] withTemporal = new String[args.length + 2];
    System.arraycopy(args, 0, withTemporal, 0, args.length);
    withTemporal[args.length] = "--temporal";
    withTemporal[args.length + 1] = "127.0.0.1:1";
    return new Outcome(commandLine.execute(withTemporal), err.toString());
  }
}
