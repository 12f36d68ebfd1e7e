package io.durableagents.cli;

import io.durableagents.client.AgentClientException;
import io.durableagents.client.ApprovalNotFoundException;
import io.durableagents.client.CheckpointNotFoundException;
import io.durableagents.client.InvalidInputException;
import io.durableagents.client.SessionAwaitingApprovalException;
import io.durableagents.client.SessionConflictException;
import io.durableagents.client.SessionNotFoundException;
import io.durableagents.client.SessionRecoveringException;
import io.durableagents.client.internal.RecoveryRetry;
import io.durableagents.workflow.FailureTypes;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.failure.ApplicationFailure;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The top-level {@code agents} command with the client commands {@code send} and {@code status};
 * the worker app adds its own ({@code demo}, {@code dev}, {@code server}, {@code worker}). Errors
 * become one line on stderr and an exit code from {@link ExitCodes}; a stack trace only with {@code
 * --verbose} or {@code AGENTS_DEBUG=1}.
 *
 * <pre>{@code
 * public static void main(String[] args) {
 *   System.exit(AgentsCli.commandLine(new DemoCommand()).execute(args));
 * }
 * }</pre>
 */
public final class AgentsCli {
  /** The command's name, {@value}. */
  public static final String NAME = "agents";

  /** Set to {@code 1} (or {@code true}) to print stack traces of errors. */
  public static final String DEBUG_VARIABLE = "AGENTS_DEBUG";

  private AgentsCli() {}

  /** The {@code agents} command line over the process environment, printing UTF-8. */
  public static CommandLine commandLine(Object... extraSubcommands) {
    return commandLine(System.getenv(), extraSubcommands);
  }

  /**
   * The {@code agents} command line taking option defaults and {@code AGENTS_DEBUG} from {@code
   * env}. {@code extraSubcommands} (annotated command objects or {@link CommandLine}s) are listed
   * before {@code send} and {@code status}.
   */
  public static CommandLine commandLine(Map<String, String> env, Object... extraSubcommands) {
    CommandLine commandLine = new CommandLine(new Agents());
    for (Object subcommand : extraSubcommands) {
      commandLine.addSubcommand(subcommand);
    }
    commandLine.addSubcommand(new SendCommand());
    commandLine.addSubcommand(new StatusCommand());
    commandLine.addSubcommand(new ApproveCommand());
    commandLine.addSubcommand(new RejectCommand());
    commandLine.addSubcommand(new CancelCommand());
    commandLine.addSubcommand(new CloseCommand());
    commandLine.addSubcommand(new DeleteCommand());
    commandLine.addSubcommand(new ResetCommand());
    commandLine.addSubcommand(new ForkCommand());
    commandLine.addSubcommand(new DiffCommand());
    commandLine.addSubcommand(new HistoryCommand());
    commandLine.addSubcommand(new ApprovalsCommand());
    commandLine.addSubcommand(new SessionsCommand());
    // These settings reach every subcommand added so far, so they come last.
    // An argument starting with @ is text (a message may well start with one), never a file to
    // read.
    commandLine.setExpandAtFiles(false);
    commandLine.setDefaultValueProvider(new EnvironmentDefaults(env));
    commandLine.setOut(utf8(System.out));
    commandLine.setErr(utf8(System.err));
    commandLine.setParameterExceptionHandler(new UsageErrorHandler());
    commandLine.setExecutionExceptionHandler(new ErrorHandler(isDebug(env)));
    return commandLine;
  }

  static boolean isDebug(Map<String, String> env) {
    String value = env.get(DEBUG_VARIABLE);
    return value != null && (value.equals("1") || value.equalsIgnoreCase("true"));
  }

  private static PrintWriter utf8(PrintStream stream) {
    return new PrintWriter(new OutputStreamWriter(stream, StandardCharsets.UTF_8), true);
  }

  /** The exit code for an exception thrown by a command; see {@link ExitCodes}. */
  public static int exitCodeOf(Throwable e) {
    if (e instanceof CliException cli) {
      return cli.exitCode();
    }
    if (e instanceof SessionNotFoundException || e instanceof CheckpointNotFoundException) {
      return ExitCodes.NOT_FOUND;
    }
    if (e instanceof SessionAwaitingApprovalException) {
      return ExitCodes.AWAITING_APPROVAL;
    }
    if (e instanceof ApprovalNotFoundException notFound) {
      return notFound.alreadyDecided() ? ExitCodes.ERROR : ExitCodes.NOT_FOUND;
    }
    if (hasFailureType(e, FailureTypes.SESSION_AWAITING_APPROVAL)) {
      return ExitCodes.AWAITING_APPROVAL;
    }
    if (e instanceof IllegalArgumentException
        || e instanceof InvalidInputException
        || e instanceof SessionConflictException) {
      return ExitCodes.USAGE;
    }
    return ExitCodes.ERROR;
  }

  /** The one line printed for an exception thrown by a command. */
  public static String messageOf(Throwable e) {
    if (!(e instanceof SessionRecoveringException) && RecoveryRetry.isFailedTaskRefusal(e)) {
      // A refusal that reached the command some other way: the product's words, not gRPC's.
      return "The session is recovering from a worker failure: Temporal takes no requests for it"
          + " until a worker completes its workflow task. Try again in a minute.";
    }
    if (e instanceof CliException
        || e instanceof AgentClientException
        || e instanceof IllegalArgumentException) {
      if (isUnreachable(e) && !(e instanceof CliException)) {
        return "Lost the connection to Temporal: " + e.getMessage();
      }
      return e.getMessage() == null ? e.toString() : e.getMessage();
    }
    if (isUnreachable(e)) {
      return "Cannot reach Temporal: "
          + rootMessage(e)
          + " (start one with './agents dev', or point --temporal / TEMPORAL_ADDRESS at yours).";
    }
    return "Unexpected error: " + rootMessage(e) + " (run with --verbose for details)";
  }

  /** True when the cause chain holds an {@link ApplicationFailure} of {@code type}. */
  static boolean hasFailureType(Throwable e, String type) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ApplicationFailure failure && type.equals(failure.getType())) {
        return true;
      }
    }
    return false;
  }

  /** True when the cause chain holds a gRPC status saying the server cannot be reached. */
  static boolean isUnreachable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof StatusRuntimeException status) {
        Status.Code code = status.getStatus().getCode();
        if (code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED) {
          return true;
        }
      }
    }
    return false;
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage();
    return message == null || message.isBlank() ? root.getClass().getSimpleName() : message;
  }

  /** True when {@code --verbose} was given on the command or any of its parents. */
  static boolean verboseRequested(ParseResult parseResult) {
    for (ParseResult p = parseResult; p != null; p = p.subcommand()) {
      if (p.hasMatchedOption("--verbose")) {
        return true;
      }
    }
    return false;
  }

  @Command(
      name = NAME,
      mixinStandardHelpOptions = true,
      scope = ScopeType.INHERIT,
      versionProvider = VersionProvider.class,
      synopsisSubcommandLabel = "COMMAND",
      description = "Durable AI-agent sessions on Temporal.",
      footer = {
        "",
        "Option defaults come from AGENTS_TASK_QUEUE, AGENTS_PROJECTION_URL and AGENTS_MODEL;",
        "Temporal settings from TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY,",
        "TEMPORAL_TLS_* and the temporal.toml profile (TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE).",
        "AGENTS_DEBUG=1 prints stack traces.",
        "Exit codes: 0 ok, 1 error, 2 usage, 3 awaiting approval, 4 not found.",
        "Start with: ./agents demo"
      })
  static final class Agents implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(
        names = "--verbose",
        scope = ScopeType.INHERIT,
        description = "Print stack traces of errors.")
    boolean verbose;

    @Override
    public Integer call() {
      PrintWriter err = spec.commandLine().getErr();
      err.println("Missing a command.");
      spec.commandLine().usage(err);
      return ExitCodes.USAGE;
    }
  }

  static final class VersionProvider implements IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = AgentsCli.class.getPackage().getImplementationVersion();
      return new String[] {
        NAME + " " + (version == null ? "(development build)" : version),
        "Temporal Java SDK " + io.temporal.serviceclient.Version.LIBRARY_VERSION,
        "Java " + System.getProperty("java.version")
      };
    }
  }

  /** Usage errors: the message, suggestions, and where to find help; exit code 2. */
  static final class UsageErrorHandler implements IParameterExceptionHandler {
    @Override
    public int handleParseException(ParameterException e, String[] args) {
      CommandLine commandLine = e.getCommandLine();
      PrintWriter err = commandLine.getErr();
      String[] given = args.length > 0 ? args : originalArgs(e.getCommandLine());
      err.println(commandLine.getColorScheme().errorText(Shown.shortened(e.getMessage(), given)));
      UnmatchedArgumentException.printSuggestions(e, err);
      if (startsWithDash(e) && commandLine.getCommandSpec().userObject() instanceof SendCommand) {
        err.println(
            "A message that starts with '-' goes after --: "
                + commandLine.getCommandSpec().qualifiedName()
                + " SESSION -- TEXT");
      }
      err.println(
          "Try '"
              + commandLine.getCommandSpec().qualifiedName()
              + " --help' for more information.");
      err.flush();
      return ExitCodes.USAGE;
    }
  }

  /** An unknown option that may be meant as text: a message such as "-5 degrees?". */
  private static boolean startsWithDash(ParameterException e) {
    return e instanceof UnmatchedArgumentException unmatched
        && unmatched.getUnmatched().stream().anyMatch(a -> a.startsWith("-") && !a.equals("-"));
  }

  /** The arguments the command line was parsed from, or none when it was not parsed yet. */
  private static String[] originalArgs(CommandLine commandLine) {
    ParseResult parsed = commandLine.getParseResult();
    return parsed == null ? new String[0] : parsed.originalArgs().toArray(new String[0]);
  }

  /** Errors of commands: one line on stderr and the exit code of {@link #exitCodeOf}. */
  static final class ErrorHandler implements IExecutionExceptionHandler {
    private final boolean debug;

    ErrorHandler(boolean debug) {
      this.debug = debug;
    }

    @Override
    public int handleExecutionException(
        Exception e, CommandLine commandLine, ParseResult parseResult) {
      if (e instanceof ParameterException parameterException) {
        return new UsageErrorHandler().handleParseException(parameterException, new String[0]);
      }
      PrintWriter err = commandLine.getErr();
      if (debug || verboseRequested(parseResult)) {
        e.printStackTrace(err);
      }
      // Any argument the message quotes is cut short, whichever layer wrote the message.
      err.println(Shown.shortened(messageOf(e), parseResult.originalArgs().toArray(new String[0])));
      err.flush();
      return exitCodeOf(e);
    }
  }
}
