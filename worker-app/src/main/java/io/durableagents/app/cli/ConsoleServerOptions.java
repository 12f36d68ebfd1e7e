package io.durableagents.app.cli;

import io.durableagents.app.Durations;
import io.durableagents.console.AgentConsole;
import io.durableagents.console.ConsoleAuth;
import io.durableagents.console.ConsoleOptions;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The options of {@code agents console}: where it listens and who may use it. */
public class ConsoleServerOptions {
  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      defaultValue = "8080",
      description = "Port to serve the console on (default: ${DEFAULT-VALUE}; 0: any free port).")
  int port;

  @Option(
      names = "--bind",
      paramLabel = "ADDRESS",
      defaultValue = "127.0.0.1",
      description =
          "Address to listen on (default: ${DEFAULT-VALUE}). Any other needs --tokens or"
              + " --trusted-header.")
  String bind;

  @Option(
      names = "--tokens",
      paramLabel = "FILE",
      description =
          "Bearer tokens, one 'APPROVER TOKEN' pair per line: each caller is the approver its"
              + " token names.")
  Path tokens;

  @Option(
      names = "--trusted-header",
      paramLabel = "HEADER",
      description =
          "A reverse proxy authenticates users and names them in this header (e.g."
              + " X-Forwarded-User). Only when nothing but the proxy reaches the console.")
  String trustedHeader;

  @Option(
      names = "--temporal-ui",
      paramLabel = "URL",
      defaultValue = "${env:AGENTS_TEMPORAL_UI}",
      description =
          "The Temporal Web UI to link sessions to, e.g. http://127.0.0.1:8233 (env"
              + " AGENTS_TEMPORAL_UI).")
  String temporalUi;

  @Option(
      names = "--worker-events",
      paramLabel = "URL",
      split = ",",
      description =
          "Workers to relay model deltas from: the base URL of each one's --http-port endpoint,"
              + " e.g. http://127.0.0.1:8233 (repeat, or separate with commas).")
  List<URI> workerEvents = List.of();

  @Option(
      names = "--login-timeout",
      paramLabel = "DURATION",
      defaultValue = "12h",
      description =
          "How long a page's token login lasts before the token is asked for again (default:"
              + " ${DEFAULT-VALUE}; e.g. 30m, 8h, 1d).")
  String loginTimeout;

  /** The console's options, for the sessions of {@code namespace}; usage errors name the option. */
  ConsoleOptions options(String namespace) {
    if (tokens != null && trustedHeader != null) {
      throw usage("--tokens and --trusted-header are two ways to authenticate: choose one.");
    }
    try {
      ConsoleAuth auth =
          tokens != null
              ? ConsoleAuth.tokensFile(tokens)
              : trustedHeader != null
                  ? ConsoleAuth.trustedHeader(trustedHeader)
                  : ConsoleAuth.local();
      ConsoleOptions.Builder builder = ConsoleOptions.newBuilder();
      workerEvents.forEach(builder::addWorkerEvents);
      ConsoleOptions options =
          builder
              .setPort(port)
              .setBind(bind)
              .setAuthentication(auth)
              .setTemporalUiUrl(temporalUi == null || temporalUi.isBlank() ? null : temporalUi)
              .setNamespace(namespace)
              .setLoginTimeout(loginTimeout())
              .build();
      String problem = AgentConsole.problem(options);
      if (problem != null) {
        throw usage(problem + ".");
      }
      return options;
    } catch (IllegalArgumentException | UncheckedIOException e) {
      throw usage(e.getMessage() + ".");
    }
  }

  private Duration loginTimeout() {
    return Durations.parse(loginTimeout)
        .filter(duration -> !duration.isZero())
        .orElseThrow(
            () ->
                usage(
                    "Invalid --login-timeout '"
                        + loginTimeout
                        + "': expected a positive duration such as "
                        + Durations.FORMS
                        + "."));
  }

  private ParameterException usage(String message) {
    return new ParameterException(mixee.commandLine(), message);
  }
}
