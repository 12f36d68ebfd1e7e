package io.durableagents.cli;

import java.util.Map;
import java.util.Objects;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Takes option defaults from environment variables of the same meaning (DESIGN §5.1): an option
 * given on the command line wins, then the variable, then the option's built-in default. Reads
 * from a map so tests need not touch the process environment.
 */
public final class EnvironmentDefaults implements IDefaultValueProvider {
  /** Option name to the environment variable that supplies its default. */
  public static final Map<String, String> VARIABLES =
      Map.of(
          "--temporal", "TEMPORAL_ADDRESS",
          "--namespace", "TEMPORAL_NAMESPACE",
          "--task-queue", "AGENTS_TASK_QUEUE",
          "--projection", "AGENTS_PROJECTION_URL",
          "--model", "AGENTS_MODEL");

  private final Map<String, String> env;

  public EnvironmentDefaults(Map<String, String> env) {
    this.env = Map.copyOf(Objects.requireNonNull(env, "env"));
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
