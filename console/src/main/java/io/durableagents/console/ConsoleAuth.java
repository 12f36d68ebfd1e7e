package io.durableagents.console;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * How the console learns who is calling: that identity is the {@code decidedBy} of every decision
 * taken through it, never a field of the request.
 *
 * <ul>
 *   <li>{@link #local()}: no authentication; the identity is the operating-system user running the
 *       console. Only allowed on a loopback address.
 *   <li>{@link #tokens}: bearer tokens, each naming its approver.
 *   <li>{@link #trustedHeader}: a reverse proxy authenticates and names the user in a header.
 * </ul>
 */
public final class ConsoleAuth {
  /** The kinds of authentication, as {@code GET /api/me} names them. */
  public enum Kind {
    LOCAL,
    TOKEN,
    PROXY;

    /** The name in JSON: {@code local}, {@code token}, {@code proxy}. */
    public String value() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Kind kind;
  private final Map<String, String> approversByToken;
  private final String header;
  private final String localIdentity;

  private ConsoleAuth(
      Kind kind, Map<String, String> approversByToken, String header, String localIdentity) {
    this.kind = kind;
    this.approversByToken = approversByToken;
    this.header = header;
    this.localIdentity = localIdentity;
  }

  /** No authentication: every caller is the operating-system user running the console. */
  public static ConsoleAuth local() {
    String user = System.getProperty("user.name");
    return new ConsoleAuth(
        Kind.LOCAL, Map.of(), null, user == null || user.isBlank() ? "local" : user);
  }

  /**
   * Bearer tokens: a caller sends {@code Authorization: Bearer TOKEN} (the pages log in with the
   * token once and keep a session cookie) and is the approver that token names.
   *
   * @param approversByToken token to approver name; neither blank
   */
  public static ConsoleAuth tokens(Map<String, String> approversByToken) {
    if (approversByToken.isEmpty()) {
      throw new IllegalArgumentException("token authentication needs at least one token");
    }
    approversByToken.forEach(
        (token, approver) -> {
          if (token == null || token.isBlank() || approver == null || approver.isBlank()) {
            throw new IllegalArgumentException("tokens and approver names must not be blank");
          }
        });
    return new ConsoleAuth(Kind.TOKEN, Map.copyOf(approversByToken), null, null);
  }

  /**
   * The tokens of a file: one {@code APPROVER TOKEN} pair per line, blank lines and lines starting
   * with {@code #} ignored.
   *
   * @throws IllegalArgumentException naming the line that is not such a pair, or a repeated token
   * @throws UncheckedIOException when the file cannot be read
   */
  public static ConsoleAuth tokensFile(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the tokens file " + file, e);
    }
    Map<String, String> tokens = new LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] fields = line.split("\\s+", -1);
      if (fields.length != 2) {
        throw new IllegalArgumentException(
            file + " line " + (i + 1) + ": expected 'APPROVER TOKEN'");
      }
      if (tokens.put(fields[1], fields[0]) != null) {
        throw new IllegalArgumentException(
            file + " line " + (i + 1) + ": this token is given twice");
      }
    }
    if (tokens.isEmpty()) {
      throw new IllegalArgumentException(file + " holds no token");
    }
    return tokens(tokens);
  }

  /**
   * A reverse proxy in front of the console authenticates the user and names them in {@code header}
   * (e.g. {@code X-Forwarded-User}); a request without it is refused. Only safe when nothing but
   * the proxy can reach the console.
   */
  public static ConsoleAuth trustedHeader(String header) {
    Objects.requireNonNull(header, "header");
    if (!header.matches("[A-Za-z0-9-]+")) {
      throw new IllegalArgumentException("not an HTTP header name: '" + header + "'");
    }
    return new ConsoleAuth(Kind.PROXY, Map.of(), header, null);
  }

  public Kind kind() {
    return kind;
  }

  /** The approver a bearer token names, or null for a token this authentication does not hold. */
  public String approverOf(String token) {
    return token == null ? null : approversByToken.get(token);
  }

  /** The header a trusted proxy names the user in; null unless {@link Kind#PROXY}. */
  public String header() {
    return header;
  }

  /** The identity of every caller under {@link #local()}; null otherwise. */
  public String localIdentity() {
    return localIdentity;
  }

  @Override
  public String toString() {
    return switch (kind) {
      case LOCAL -> "local (" + localIdentity + ")";
      case TOKEN -> "tokens (" + approversByToken.size() + ")";
      case PROXY -> "trusted header " + header;
    };
  }
}
