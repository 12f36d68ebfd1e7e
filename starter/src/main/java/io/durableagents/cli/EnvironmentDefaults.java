package io.durableagents.cli;

import java.util.Map;
import java.util.Objects;
import picocli.CommandLine;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Takes option defaults from environment variables of the same meaning: an option given on the
 * command line wins, then the variable, then the option's built-in default. Reads from a map so
 * tests need not touch the process environment. The Temporal connection options ({@code
 * --temporal}, {@code --namespace}, ...) have no entry here: {@link ConnectionSettings} reads
 * {@code TEMPORAL_*} and {@code temporal.toml} profiles from {@link #environmentOf}.
 */
public final class EnvironmentDefaults implements IDefaultValueProvider {
  /** Option name to the environment variable that supplies its default. */
  public static final Map<String, String> VARIABLES =
      Map.of(
          "--task-queue", "AGENTS_TASK_QUEUE",
          "--projection", "AGENTS_PROJECTION_URL",
          "--model", "AGENTS_MODEL",
          "--deployment", "AGENTS_DEPLOYMENT_NAME",
          "--build-id", "AGENTS_BUILD_ID");

  private final Map<String, String> env;

  /** Defaults read from {@code env}, usually {@code System.getenv()}. */
  public EnvironmentDefaults(Map<String, String> env) {
    this.env = Map.copyOf(Objects.requireNonNull(env, "env"));
  }

  /** The environment this provider reads. */
  public Map<String, String> environment() {
    return env;
  }

  /**
   * The environment of the command line {@code spec} belongs to (a command or a mixin): the map
   * given to {@link AgentsCli#commandLine(Map, Object...)}, else the process environment.
   */
  public static Map<String, String> environmentOf(CommandSpec spec) {
    CommandLine commandLine = spec == null ? null : spec.commandLine();
    if (commandLine != null
        && commandLine.getDefaultValueProvider() instanceof EnvironmentDefaults defaults) {
      return defaults.env;
    }
    return System.getenv();
  }

  @Override
  public String defaultValue(ArgSpec argSpec) {
    if (!(argSpec instanceof OptionSpec option)) {
      return null;
    }
    String variable = VARIABLES.get(option.longestName());
    if (variable == null) {
      return null;
    }
    String value = env.get(variable);
    return value == null || value.isBlank() ? null : value.strip();
  }
}
