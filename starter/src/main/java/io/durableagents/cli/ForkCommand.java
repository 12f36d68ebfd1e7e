package io.durableagents.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.client.ForkResult;
import io.durableagents.workflow.ForkPatch;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code agents fork SESSION --from-step N}: a new session from a kept history entry. */
@Command(
    name = "fork",
    description = {
      "Start a new session from a kept history entry of SESSION, optionally patched.",
      "The source session is not touched. The command returns once the fork is prepared (a worker",
      "must be polling); a patch the entry cannot take creates nothing.",
      "Wait for the fork's run with: agents send FORK_ID \"\""
    },
    footer = {
      "",
      "Exit codes: 0 forked, 1 error (id taken), 2 usage or a patch refused, 4 no such session or step."
    })
public class ForkCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Parameters(index = "0", paramLabel = "SESSION", description = "The source session.")
  String session;

  @Option(
      names = "--from-step",
      paramLabel = "N",
      required = true,
      description = "The history entry (see agents history).")
  int fromStep;

  @Option(
      names = "--append-input",
      paramLabel = "TEXT",
      description =
          "A user message sent after any calls still pending, as given; - reads standard input.")
  String appendInput;

  @Option(
      names = "--append-input-file",
      paramLabel = "PATH",
      description = "Read that message from this UTF-8 file (- for standard input).")
  String appendInputFile;

  /** Where {@code -} reads from. */
  InputStream stdin = System.in;

  @Option(
      names = "--tool-result",
      paramLabel = "CALL_ID=JSON",
      description =
          "Replace (or record) a call's result, e.g. call_0_0='{\"forecast\":\"rain\"}'. Repeatable.")
  List<String> toolResults = new ArrayList<>();

  @Option(
      names = "--business-state",
      paramLabel = "JSON",
      description = "Replace the entry's business state with this JSON object ('null' clears it).")
  String businessState;

  @Option(
      names = "--as",
      paramLabel = "NEW_ID",
      description = "Id of the new session (default SESSION.fork-N).")
  String newId;

  @Option(names = "--json", description = "Print the fork as one JSON document.")
  boolean json;

  @Override
  public Integer call() {
    SendCommand.requireValidSession(session);
    List<ForkPatch.ToolResultPatch> patches = new ArrayList<>();
    for (String toolResult : toolResults) {
      patches.add(parseToolResult(toolResult));
    }
    ForkPatch patch =
        ForkPatch.newBuilder()
            .setBusinessState(parseBusinessState())
            .setToolResults(patches)
            .setAppendInput(appendInput())
            .build();
    PrintWriter out = spec.commandLine().getOut();
    try (ConnectionOptions.Connection connected = connection.open()) {
      WaitHint hint =
          WaitHint.after(
              SendCommand.WAIT_HINT_AFTER,
              "the fork",
              newId != null ? newId : session,
              spec.commandLine().getErr(),
              connection,
              connected);
      ForkResult fork;
      try {
        fork = connected.agents().fork(session, fromStep, patch, newId);
      } finally {
        hint.cancel();
      }
      if (json) {
        RunResultPrinter.printJson(fork, out);
      } else {
        out.println(
            "Forked "
                + fork.parentSessionId()
                + " at step "
                + fork.parentStep()
                + " as "
                + fork.sessionId()
                + " (patch: "
                + fork.patch()
                + ").");
        out.println("Wait for its run with: ./agents send " + fork.sessionId() + " \"\"");
        out.flush();
      }
    }
    return ExitCodes.OK;
  }

  /** The appended message in any of send's forms (text, file, standard input), or null. */
  String appendInput() {
    if (appendInput == null && appendInputFile == null) {
      return null;
    }
    return MessageInput.resolve(MessageInput.APPEND_INPUT, appendInput, appendInputFile, stdin);
  }

  private JsonNode parseBusinessState() {
    if (businessState == null) {
      return null;
    }
    JsonNode state;
    try {
      state = JSON.readTree(businessState);
    } catch (java.io.IOException e) {
      throw new CliException(ExitCodes.USAGE, "--business-state: the value is not JSON", e);
    }
    if (state == null || ForkPatch.businessStateProblem(state) != null) {
      throw new CliException(
          ExitCodes.USAGE,
          "--business-state needs a JSON object, or null to clear the state",
          null);
    }
    return state;
  }

  private ForkPatch.ToolResultPatch parseToolResult(String value) {
    int eq = value.indexOf('=');
    if (eq <= 0) {
      throw new CliException(
          ExitCodes.USAGE,
          "--tool-result needs CALL_ID=JSON, got '" + Shown.value(value) + "'",
          null);
    }
    JsonNode result;
    try {
      result = JSON.readTree(value.substring(eq + 1));
    } catch (java.io.IOException e) {
      throw new CliException(
          ExitCodes.USAGE,
          "--tool-result " + Shown.value(value.substring(0, eq)) + ": the result is not JSON",
          e);
    }
    return new ForkPatch.ToolResultPatch(value.substring(0, eq), result);
  }
}
