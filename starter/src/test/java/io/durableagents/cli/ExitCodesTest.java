package io.durableagents.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.client.AgentClientException;
import io.durableagents.client.ApprovalNotFoundException;
import io.durableagents.client.SessionAwaitingApprovalException;
import io.durableagents.client.SessionExistsException;
import io.durableagents.client.SessionNotFoundException;
import io.durableagents.client.SessionRecoveringException;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.FailureTypes;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Command;

class ExitCodesTest {

  /** A command that throws what it is given, to exercise the exception handler. */
  @Command(name = "boom")
  static final class Boom implements Callable<Integer> {
    private final Supplier<RuntimeException> failure;

    Boom(Supplier<RuntimeException> failure) {
      this.failure = failure;
    }

    @Override
    public Integer call() {
      throw failure.get();
    }
  }

  private static CliHarness.Outcome boom(
      Map<String, String> env, RuntimeException e, String... extraArgs) {
    String[] args = new String[extraArgs.length + 1];
    args[0] = "boom";
    System.arraycopy(extraArgs, 0, args, 1, extraArgs.length);
    return CliHarness.run(env, new Object[] {new Boom(() -> e)}, args);
  }

  @Test
  void runStatuses_mapToExitCodes() {
    assertThat(ExitCodes.forStatus(RunStatus.FINISHED)).isEqualTo(0);
    assertThat(ExitCodes.forStatus(RunStatus.CANCELLED)).isEqualTo(0);
    assertThat(ExitCodes.forStatus(RunStatus.IN_PROGRESS)).isEqualTo(0);
    assertThat(ExitCodes.forStatus(RunStatus.FAILED)).isEqualTo(1);
    assertThat(ExitCodes.forStatus(RunStatus.AWAITING_APPROVAL)).isEqualTo(3);
  }

  @Test
  void approvalRefusals_mapTo3_4_and1() {
    assertThat(
            boom(Map.of(), new SessionAwaitingApprovalException("s", "a-1", "waits on a-1"))
                .exitCode())
        .isEqualTo(ExitCodes.AWAITING_APPROVAL);
    assertThat(boom(Map.of(), new ApprovalNotFoundException("no such approval", false)).exitCode())
        .isEqualTo(ExitCodes.NOT_FOUND);
    CliHarness.Outcome decided =
        boom(Map.of(), new ApprovalNotFoundException("already decided", true));
    assertThat(decided.exitCode()).isEqualTo(ExitCodes.ERROR);
    assertThat(decided.err().strip()).isEqualTo("already decided");
  }

  @Test
  void aTakenForkId_exits1_withTheMessageOnStderr() {
    CliHarness.Outcome outcome = boom(Map.of(), new SessionExistsException("chat-1.copy"));

    assertThat(outcome.exitCode()).isEqualTo(ExitCodes.ERROR);
    assertThat(outcome.err().strip())
        .isEqualTo("Session 'chat-1.copy' already exists; choose another id.");
  }

  @Test
  void sessionNotFound_exits4_withTheMessageOnStderr() {
    CliHarness.Outcome outcome = boom(Map.of(), new SessionNotFoundException("nope"));

    assertThat(outcome.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(outcome.err().strip()).isEqualTo("No session 'nope'.");
    assertThat(outcome.out()).isEmpty();
  }

  @Test
  void illegalArgument_exits2() {
    CliHarness.Outcome outcome =
        boom(Map.of(), new IllegalArgumentException("Model script not found: x.json"));

    assertThat(outcome.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(outcome.err().strip()).isEqualTo("Model script not found: x.json");
  }

  @Test
  void clientErrors_exit1_onOneLineWithoutStackTrace() {
    CliHarness.Outcome outcome =
        boom(Map.of(), new AgentClientException("Session 'a' refused the input: approval pending"));

    assertThat(outcome.exitCode()).isEqualTo(ExitCodes.ERROR);
    assertThat(outcome.err().strip()).isEqualTo("Session 'a' refused the input: approval pending");
  }

  @Test
  void inputRefusedWhileAwaitingApproval_exits3() {
    AgentClientException refused =
        new AgentClientException(
            "Session 'a' refused the input: awaiting approval",
            ApplicationFailure.newNonRetryableFailure(
                "awaiting approval", FailureTypes.SESSION_AWAITING_APPROVAL));

    CliHarness.Outcome outcome = boom(Map.of(), refused);

    assertThat(outcome.exitCode()).isEqualTo(ExitCodes.AWAITING_APPROVAL);
    assertThat(outcome.err().strip()).isEqualTo("Session 'a' refused the input: awaiting approval");
  }

  @Test
  void aRecoveringSession_exits1_inTheProductsWords_neverGrpcs() {
    StatusRuntimeException refusal =
        new StatusRuntimeException(
            Status.FAILED_PRECONDITION.withDescription(
                "Unable to perform workflow execution update due to Workflow Task in failed"
                    + " state."));

    CliHarness.Outcome recovering =
        boom(Map.of(), new SessionRecoveringException("chat-1", refusal));
    // A refusal that reaches a command without AgentClient's exception around it.
    CliHarness.Outcome raw = boom(Map.of(), new IllegalStateException("wrapped", refusal));

    assertThat(recovering.exitCode()).isEqualTo(ExitCodes.ERROR);
    assertThat(recovering.err().strip())
        .isEqualTo(
            "Session 'chat-1' is recovering from a worker failure: Temporal takes no requests for"
                + " it until a worker completes its workflow task. Try again in a minute.");
    assertThat(raw.exitCode()).isEqualTo(ExitCodes.ERROR);
    assertThat(raw.err().strip())
        .isEqualTo(
            "The session is recovering from a worker failure: Temporal takes no requests for it"
                + " until a worker completes its workflow task. Try again in a minute.");
    for (CliHarness.Outcome outcome : java.util.List.of(recovering, raw)) {
      assertThat(outcome.err())
          .doesNotContain("FAILED_PRECONDITION", "StatusRuntimeException", "failed state");
    }
  }

  @Test
  void cliExceptions_carryTheirOwnExitCode() {
    assertThat(boom(Map.of(), new CliException(3, "waiting")).exitCode()).isEqualTo(3);
  }

  @Test
  void unreachableTemporal_exits1_withAClearLine() {
    RuntimeException e =
        new RuntimeException(
            "wrapped",
            new StatusRuntimeException(Status.UNAVAILABLE.withDescription("io exception")));

    CliHarness.Outcome outcome = boom(Map.of(), e);

    assertThat(outcome.exitCode()).isEqualTo(ExitCodes.ERROR);
    assertThat(outcome.err().strip().lines()).hasSize(1);
    assertThat(outcome.err()).contains("Cannot reach Temporal").contains("./agents dev");
  }

  @Test
  void unexpectedErrors_exit1_andSuggestVerbose() {
    CliHarness.Outcome outcome = boom(Map.of(), new IllegalStateException("kaput"));

    assertThat(outcome.exitCode()).isEqualTo(ExitCodes.ERROR);
    assertThat(outcome.err().strip().lines()).hasSize(1);
    assertThat(outcome.err()).contains("kaput").contains("--verbose");
  }

  @Test
  void verboseOrAgentsDebug_printTheStackTrace() {
    CliHarness.Outcome verbose = boom(Map.of(), new IllegalStateException("kaput"), "--verbose");
    CliHarness.Outcome debug =
        boom(Map.of("AGENTS_DEBUG", "1"), new IllegalStateException("kaput"));
    CliHarness.Outcome quiet =
        boom(Map.of("AGENTS_DEBUG", "0"), new IllegalStateException("kaput"));

    assertThat(verbose.err()).contains("java.lang.IllegalStateException: kaput").contains("\tat ");
    assertThat(debug.err()).contains("\tat ");
    assertThat(quiet.err()).doesNotContain("\tat ");
  }

  @Test
  void invalidSessionId_exits2_beforeConnecting() {
    CliHarness.Outcome send = CliHarness.run("send", "bad id!", "x", "--temporal", "127.0.0.1:1");
    CliHarness.Outcome status = CliHarness.run("status", "bad id!", "--temporal", "127.0.0.1:1");

    assertThat(send.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(send.err()).startsWith("Invalid session id 'bad id!'");
    assertThat(send.out()).isEmpty();
    assertThat(status.exitCode()).isEqualTo(ExitCodes.USAGE);
  }

  @Test
  void usageErrors_exit2() {
    assertThat(CliHarness.run("send", "only-session").exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(CliHarness.run("send", "s", "t", "--no-such-option").exitCode())
        .isEqualTo(ExitCodes.USAGE);
    assertThat(CliHarness.run("send", "s", "t", "--max-steps", "zero").exitCode())
        .isEqualTo(ExitCodes.USAGE);
    assertThat(CliHarness.run("send", "s", "t", "--max-steps", "0").exitCode())
        .isEqualTo(ExitCodes.USAGE);
    // A run configuration that is no JSON object is refused before anything is sent.
    CliHarness.Outcome array = CliHarness.run("send", "s", "t", "--run-config", "[\"gold\"]");
    assertThat(array.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(array.err()).contains("--run-config must be a JSON object, got array");
    assertThat(CliHarness.run("send", "s", "t", "--run-config", "{tier").err())
        .contains("--run-config is not JSON");
    assertThat(CliHarness.run("no-such-command").exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(CliHarness.run().exitCode()).isEqualTo(ExitCodes.USAGE);
  }

  @Test
  void helpAndVersion_exit0() {
    assertThat(CliHarness.run("--help").out()).contains("send").contains("status");
    assertThat(CliHarness.run("--version").exitCode()).isZero();
    assertThat(CliHarness.run("status", "-h").exitCode()).isZero();
  }

  @Test
  void sendToAClosedPort_exits1_sayingTemporalIsUnreachable() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }

    CliHarness.Outcome outcome =
        CliHarness.run("send", "chat-1", "hello", "--temporal", "127.0.0.1:" + port);

    assertThat(outcome.exitCode()).isEqualTo(ExitCodes.ERROR);
    assertThat(outcome.err().strip().lines()).hasSize(1);
    assertThat(outcome.err()).startsWith("Cannot reach Temporal at 127.0.0.1:" + port);
    assertThat(outcome.out()).isEmpty();
  }
}
