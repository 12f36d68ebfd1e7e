package io.durableagents.spring.boot.internal;

import io.durableagents.console.AgentConsole;
import io.durableagents.console.ConsoleAuth;
import io.durableagents.console.ConsoleOptions;
import io.durableagents.spring.boot.DurableAgentsProperties;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The console's options from {@code durable-agents.console.*}: at most one authentication (tokens,
 * a tokens file or a trusted header; none is the local user, on a loopback address only), each
 * refusal naming its property.
 */
public final class ConsoleSettings {
  private static final String PREFIX = DurableAgentsProperties.PREFIX + ".console.";

  private ConsoleSettings() {}

  /** The options, for the sessions of {@code namespace}. */
  public static ConsoleOptions options(DurableAgentsProperties.Console console, String namespace) {
    ConsoleOptions.Builder builder = ConsoleOptions.newBuilder();
    InvalidProperty.check(
        PREFIX + "bind", console.getBind(), () -> builder.setBind(console.getBind()));
    InvalidProperty.check(
        PREFIX + "port", console.getPort(), () -> builder.setPort(console.getPort()));
    InvalidProperty.check(
        PREFIX + "login-timeout",
        console.getLoginTimeout(),
        () -> builder.setLoginTimeout(console.getLoginTimeout()));
    if (console.getTemporalUiUrl() != null) {
      InvalidProperty.check(
          PREFIX + "temporal-ui-url",
          console.getTemporalUiUrl(),
          () -> builder.setTemporalUiUrl(console.getTemporalUiUrl()));
    }
    builder.setNamespace(namespace);
    builder.setAuthentication(authentication(console));
    ConsoleOptions options = builder.build();
    String problem = AgentConsole.problem(options);
    if (problem != null) {
      throw InvalidProperty.of(
          PREFIX + "bind",
          console.getBind(),
          problem
              .replace("--tokens FILE", PREFIX + "tokens or " + PREFIX + "tokens-file")
              .replace("--trusted-header HEADER", PREFIX + "trusted-header"));
    }
    return options;
  }

  private static ConsoleAuth authentication(DurableAgentsProperties.Console console) {
    List<String> chosen = new ArrayList<>();
    if (!console.getTokens().isEmpty()) {
      chosen.add(PREFIX + "tokens");
    }
    if (console.getTokensFile() != null) {
      chosen.add(PREFIX + "tokens-file");
    }
    if (console.getTrustedHeader() != null) {
      chosen.add(PREFIX + "trusted-header");
    }
    if (chosen.size() > 1) {
      throw InvalidProperty.of(
          chosen.get(1), "(set)", "choose one authentication of the console, not " + chosen);
    }
    if (!console.getTokens().isEmpty()) {
      Map<String, String> approversByToken = new LinkedHashMap<>();
      console
          .getTokens()
          .forEach(
              (approver, token) -> {
                if (approversByToken.put(token, approver) != null) {
                  throw InvalidProperty.of(
                      PREFIX + "tokens." + approver, "(secret)", "two approvers have this token");
                }
              });
      return InvalidProperty.check(
          PREFIX + "tokens", "(secret)", () -> ConsoleAuth.tokens(approversByToken));
    }
    if (console.getTokensFile() != null) {
      return InvalidProperty.check(
          PREFIX + "tokens-file",
          console.getTokensFile(),
          () -> ConsoleAuth.tokensFile(console.getTokensFile()));
    }
    if (console.getTrustedHeader() != null) {
      return InvalidProperty.check(
          PREFIX + "trusted-header",
          console.getTrustedHeader(),
          () -> ConsoleAuth.trustedHeader(console.getTrustedHeader()));
    }
    return ConsoleAuth.local();
  }
}
