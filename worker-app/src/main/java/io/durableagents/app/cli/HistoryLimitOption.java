package io.durableagents.app.cli;

import io.durableagents.store.StoreOptions;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code --history-limit N} option (env {@code AGENTS_HISTORY_LIMIT}, default 50, 0 keeps
 * none): how many checkpoint history entries the store keeps per session. A picocli mixin for the
 * commands that write the projection.
 */
public class HistoryLimitOption {
  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  @Option(
      names = "--history-limit",
      paramLabel = "N",
      description =
          "History entries kept per session, the newest steps; 0 keeps none"
              + " (env "
              + StoreOptions.HISTORY_LIMIT_VARIABLE
              + "; default: "
              + StoreOptions.DEFAULT_HISTORY_LIMIT
              + ").")
  String historyLimit;

  /** The store options: the option if given, else the environment variable, else the default. */
  public StoreOptions storeOptions() {
    return storeOptions(System.getenv());
  }

  /** {@link #storeOptions()} with the environment from {@code env}. */
  public StoreOptions storeOptions(Map<String, String> env) {
    try {
      if (historyLimit != null) {
        return StoreOptions.newBuilder()
            .setHistoryLimit(StoreOptions.parseHistoryLimit(historyLimit, "--history-limit"))
            .build();
      }
      return StoreOptions.fromEnvironment(env);
    } catch (IllegalArgumentException e) {
      if (spec != null) {
        throw new ParameterException(spec.commandLine(), e.getMessage(), e);
      }
      throw e;
    }
  }
}
