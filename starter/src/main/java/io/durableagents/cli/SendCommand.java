package io.durableagents.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.client.AgentClient;
import io.durableagents.client.SendOptions;
import io.durableagents.client.SessionExistsException;
import io.durableagents.client.SessionIds;
import io.durableagents.workflow.Limits;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code agents send SESSION TEXT}: sends a message to a session (starting it when new), waits for
 * the run it triggers and prints the result. The message is TEXT as given, or read with {@code
 * --input-file PATH} or from standard input ({@code -}); it is checked against the session's rules
 * and limits before anything is sent. Exit code 0, 1 for a failed run, 3 when the run waits for an
 * approval, 4 when there is no such session, 2 for an invalid session id or a message the session
 * would refuse. The same message right after a failed or cancelled run (or later, with that run's
 * {@code --idempotency-key}) resumes that run, and the result printed is the resumed run's. Once
 * the session took the message, a projection that cannot be read is a warning, not a failure.
 */
@Command(
    name = "send",
    description = {
      "Send a message to a session and print the result of the run it triggers.",
      "An unknown session is started; a finished one continues the conversation.",
      "The same message right after a failed or cancelled run resumes that run.",
      "TEXT is sent as given (a leading @ is text); use --input-file PATH or - for stdin."
    },
    footer = {
      "",
      "Exit codes: 0 finished, 1 failed or error, 2 usage (or a message the session",
      "would refuse), 3 awaiting approval, 4 no such session."
    })
public class SendCommand implements Callable<Integer> {
  /** After this long without an answer, say what the command is waiting for. */
  static final Duration WAIT_HINT_AFTER = Duration.ofSeconds(10);

  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Parameters(
      index = "0",
      paramLabel = "SESSION",
      description = "Session id (letters, digits, . _ : @ -).")
  String session;

  @Parameters(
      index = "1",
      arity = "0..1",
      paramLabel = "TEXT",
      description = "The message, sent as given; - reads it from standard input.")
  String text;

  @Option(
      names = "--input-file",
      paramLabel = "PATH",
      description = "Read the message from this UTF-8 file (- for standard input) instead of TEXT.")
  String inputFile;

  /** Where {@code -} reads from. */
  InputStream stdin = System.in;

  @Option(
      names = "--agent",
      paramLabel = "NAME",
      description =
          "Agent of a new session (default: the worker's); refused for an existing session"
              + " started with another.")
  String agent;

  @Option(
      names = "--max-steps",
      paramLabel = "N",
      description =
          "Model-turn budget of a new session's runs, 1 to "
              + Limits.MAX_STEPS
              + "; refused for an existing session started with another budget.")
  Integer maxSteps;

  @Option(
      names = "--run-config",
      paramLabel = "JSON",
      description = "Run configuration of the run this message starts: a JSON object.")
  String runConfig;

  @Option(
      names = "--concurrency-key",
      paramLabel = "KEY",
      description =
          "Concurrency key of the run this message starts: runs that share one run one at a time"
              + " (at most "
              + Limits.CONCURRENCY_KEY_CHARS
              + " characters, no control characters).")
  String concurrencyKey;

  @Option(
      names = "--idempotency-key",
      paramLabel = "KEY",
      description =
          "Key of this request: sent again with the same message after a failed or cancelled run"
              + " that this key started, it resumes that run however long ago it ended.")
  String idempotencyKey;

  @Option(names = "--json", description = "Print the run result as one JSON document.")
  boolean json;

  private ObjectNode runConfigObject() {
    if (runConfig == null) {
      return null;
    }
    JsonNode parsed;
    ObjectMapper mapper = new ObjectMapper();
    try (JsonParser parser =
        mapper.createParser(runConfig).enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)) {
      parsed = mapper.readTree(parser);
      // readTree stops after the first value: anything after it would be dropped silently.
      if (parsed != null && parser.nextToken() != null) {
        throw new ParameterException(
            spec.commandLine(),
            "--run-config must be one JSON object; more follows it at column "
                + parser.currentTokenLocation().getColumnNr());
      }
    } catch (JsonProcessingException e) {
      if (e.getOriginalMessage().startsWith("Duplicate field")) {
        // Otherwise the last value would win silently.
        throw new ParameterException(
            spec.commandLine(),
            "--run-config names a field twice: "
                + e.getOriginalMessage()
                + "; give each field once.");
      }
      throw new ParameterException(
          spec.commandLine(), "--run-config is not JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a String is read without I/O
    }
    if (!(parsed instanceof ObjectNode object)) {
      throw new ParameterException(
          spec.commandLine(),
          "--run-config must be a JSON object, got "
              + (parsed == null
                  ? "nothing"
                  : parsed.getNodeType().name().toLowerCase(java.util.Locale.ROOT)));
    }
    return object;
  }

  @Override
  public Integer call() {
    requireValidSession(session);
    if (maxSteps != null && (maxSteps < 1 || maxSteps > Limits.MAX_STEPS)) {
      throw new ParameterException(
          spec.commandLine(),
          "--max-steps must be 1 to " + Limits.MAX_STEPS + ", got " + maxSteps + ".");
    }
    String input = MessageInput.resolve(text, inputFile, stdin);
    if (input.isEmpty() && runOptions() != null) {
      // They would be dropped: an empty message starts no run to apply them to.
      throw new CliException(
          ExitCodes.USAGE,
          runOptions()
              + " of the run a message starts; an empty message starts nothing (it waits for the"
              + " run in progress).");
    }
    SendOptions options =
        SendOptions.newBuilder()
            .setAgent(agent)
            .setMaxSteps(maxSteps)
            .setRunConfig(runConfigObject())
            .setConcurrencyKey(concurrencyKey)
            .setIdempotencyKey(idempotencyKey)
            .build();
    // Before connecting: a message the session would refuse is never sent (exit 2).
    AgentClient.requireSendable(session, input, options);
    PrintWriter out = spec.commandLine().getOut();
    RunResult result;
    try (ConnectionOptions.Connection connected = connection.open()) {
      WaitHint hint =
          WaitHint.after(
              WAIT_HINT_AFTER,
              "the run",
              session,
              spec.commandLine().getErr(),
              connection,
              connected);
      try {
        // An empty message sends nothing: it waits for the run in progress.
        if (input.isEmpty()) {
          requireStartedWith(connected.agents());
          result = connected.agents().awaitRun(session);
        } else {
          result = connected.agents().send(session, input, options);
        }
      } catch (SessionExistsException e) {
        throw startOptionsRefused();
      } finally {
        hint.cancel();
      }
    }
    RunResultPrinter.print(result, json, out);
    if (json
        && result.messageCount() > 0
        && result.messages() != null
        && result.messages().isEmpty()) {
      PrintWriter err = spec.commandLine().getErr();
      err.println(
          "Note: the projection "
              + connection.projection()
              + " holds no messages of '"
              + session
              + "'; run from the worker's directory or pass the worker's --projection.");
      err.flush();
    }
    return ExitCodes.forStatus(result.status());
  }

  /**
   * Start options on an empty message: taken when the session was started with them, as a send of a
   * message takes them (a script that names its agent on every send may wait with one too).
   */
  private void requireStartedWith(AgentClient agents) {
    if (startOptions() == null) {
      return;
    }
    SessionStatus status = agents.status(session).orElse(null);
    if (status == null) {
      throw new CliException(
          ExitCodes.USAGE,
          startOptions()
              + takenOnlyAtStart()
              + "; an empty message starts nothing (it waits for the run in progress).");
    }
    if ((agent != null && !agent.equals(status.agent()))
        || (maxSteps != null && !maxSteps.equals(status.maxSteps()))) {
      throw startOptionsRefused();
    }
  }

  /** The options of the run a message starts, as given; null when none is. */
  private String runOptions() {
    List<String> given = new ArrayList<>();
    if (runConfig != null) {
      given.add("--run-config");
    }
    if (concurrencyKey != null) {
      given.add("--concurrency-key");
    }
    if (idempotencyKey != null) {
      given.add("--idempotency-key");
    }
    if (given.isEmpty()) {
      return null;
    }
    return String.join(" and ", given) + (given.size() > 1 ? " are options" : " is an option");
  }

  /** The options that only a session's first send takes, as given; null when none is. */
  private String startOptions() {
    if (agent != null && maxSteps != null) {
      return "--agent and --max-steps";
    }
    return agent != null ? "--agent" : maxSteps != null ? "--max-steps" : null;
  }

  private String takenOnlyAtStart() {
    return (agent != null && maxSteps != null ? " are" : " is")
        + " taken only by the send that starts a session";
  }

  /**
   * The client's refusal of start options for a session that exists (the send would continue it
   * without them), in the terms of this command's flags.
   */
  private CliException startOptionsRefused() {
    return new CliException(
        ExitCodes.USAGE,
        "Session '"
            + session
            + "' already exists: "
            + startOptions()
            + takenOnlyAtStart()
            + ", and would be ignored. Leave "
            + (agent != null && maxSteps != null ? "them" : "it")
            + " out to continue the session, or pick a new session id.");
  }

  /** Checks the id before connecting anywhere, so a typo is a usage error (exit 2). */
  static void requireValidSession(String session) {
    try {
      SessionIds.requireValid(session);
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitCodes.USAGE, e.getMessage(), e);
    }
  }
}
