package io.durableagents.app.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

final class Ports {
  private Ports() {}

  static void requireValid(CommandSpec spec, int port) {
    if (port < 1 || port > 65535) {
      throw new ParameterException(spec.commandLine(), "--port must be between 1 and 65535, got " + port);
    }
  }

  /** A JDBC URL fit to print: without user info and query, where passwords live. */
  static String describeUrl(String url) {
    String result = url.strip();
    int query = result.indexOf('?');
    if (query >= 0) {
      result = result.substring(0, query) + "?...";
    }
    int scheme = result.indexOf("//");
    int at = result.indexOf('@');
    if (scheme >= 0 && at > scheme) {
      result = result.substring(0, scheme + 2) + "***@" + result.substring(at + 1);
    }
    return result;
  }
}
