package io.durableagents.app.cli;

import io.durableagents.cli.AgentsCli;
import java.util.Map;
import picocli.CommandLine;

/**
 * The {@code agents} command: {@code demo}, {@code dev}, {@code server} and {@code
 * worker} from the worker app, plus the client commands of the starter. The {@code ./agents}
 * launcher at the repository root runs this class.
 *
 * <pre>{@code
 * java -cp "worker-app/target/durable-agents-worker-app.jar:worker-app/target/lib/*" \
 *     io.durableagents.app.cli.AgentsMain send chat-1 "hello" --json
 * }</pre>
 */
public final class AgentsMain {
  private AgentsMain() {}

  public static void main(String[] args) {
    // gRPC and the SDK leave non-daemon threads behind; the exit code is the command's.
    System.exit(commandLine(System.getenv()).execute(args));
  }

  /** The full {@code agents} command line, taking option defaults from {@code env}. */
  public static CommandLine commandLine(Map<String, String> env) {
    return AgentsCli.commandLine(
        env,
        new DemoCommand(),
        new DevCommand(),
        new ServerCommand(),
        new WorkerCommand(),
        new io.durableagents.app.bench.BenchCommand(),
        new ProjectionCommand());
  }
}
