package io.durableagents.app.cli;

import io.durableagents.cli.AgentsCli;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import picocli.CommandLine;

/**
 * The {@code agents} command: {@code demo}, {@code dev}, {@code server}, {@code worker}, {@code
 * console}, {@code projection} and {@code replay} from the worker app, the {@link
 * AgentsSubcommand}s of other jars on the classpath ({@code bench}), plus the client commands of
 * the starter. The {@code ./agents} launcher at the repository root runs this class, with the bench
 * module's jar on the classpath.
 *
 * <pre>{@code
 * java -cp "worker-app/target/durable-agents-worker-app.jar:worker-app/target/lib/*" \
 *     io.durableagents.app.cli.AgentsMain send chat-1 "hello" --json
 * }</pre>
 */
public final class AgentsMain {
  private AgentsMain() {}

  /** Runs the {@code agents} command line and exits with the command's exit code. */
  public static void main(String[] args) {
    // gRPC and the SDK leave non-daemon threads behind; the exit code is the command's.
    System.exit(commandLine(System.getenv()).execute(args));
  }

  /** The full {@code agents} command line, taking option defaults from {@code env}. */
  public static CommandLine commandLine(Map<String, String> env) {
    List<Object> commands = new ArrayList<>();
    commands.add(new DemoCommand());
    commands.add(new DevCommand());
    commands.add(new ServerCommand());
    commands.add(new WorkerCommand());
    commands.add(new ConsoleCommand());
    ServiceLoader.load(AgentsSubcommand.class).forEach(commands::add);
    commands.add(new ProjectionCommand());
    commands.add(new ReplayCommand());
    commands.add(new McpDemoServerCommand());
    return AgentsCli.commandLine(env, commands.toArray());
  }
}
