package io.durableagents.console;

import io.durableagents.workflow.Limits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the console learns who is calling: that identity is the {@code decidedBy} of every decision
 * taken through it, never a field of the request.
 *
 * <ul>
 *   <li>{@link #local()}: no authentication; the identity is the operating-system user running the
 *       console. Only allowed on a loopback address.
 *   <li>{@link #tokens}: bearer tokens, each naming its approver; {@link #tokensFile} reads them
 *       from a file and again whenever the file changes.
 *   <li>{@link #trustedHeader}: a reverse proxy authenticates and names the user in a header.
 * </ul>
 */
public final class ConsoleAuth {
  /** The kinds of authentication, as {@code GET /api/me} names them. */
  public enum Kind {
    /** The local user, on a loopback address only. */
    LOCAL,
    /** Bearer tokens from a tokens file. */
    TOKEN,
    /** A user name in a header set by a trusted proxy. */
    PROXY;

    /** The name in JSON: {@code local}, {@code token}, {@code proxy}. */
    public String value() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private static final Logger log = LoggerFactory.getLogger(ConsoleAuth.class);

  /** How often a tokens file is looked at for a change, at most. */
  private static final Duration RELOAD_CHECK = Duration.ofSeconds(1);

  private final Kind kind;
  private final String header;
  private final String localIdentity;
  private final Path tokensFile;
  private volatile Map<String, String> approversByToken;
  private volatile String fileVersion; // modification time and size the tokens were read at
  private volatile long checkedAt;

  private ConsoleAuth(
      Kind kind,
      Map<String, String> approversByToken,
      String header,
      String localIdentity,
      Path tokensFile) {
    this.kind = kind;
    this.approversByToken = approversByToken;
    this.header = header;
    this.localIdentity = localIdentity;
    this.tokensFile = tokensFile;
    this.fileVersion = tokensFile == null ? null : version(tokensFile);
    this.checkedAt = System.nanoTime();
  }

  /** No authentication: every caller is the operating-system user running the console. */
  public static ConsoleAuth local() {
    String user = System.getProperty("user.name");
    return new ConsoleAuth(
        Kind.LOCAL, Map.of(), null, user == null || user.isBlank() ? "local" : user, null);
  }

  /**
   * Bearer tokens: a caller sends {@code Authorization: Bearer TOKEN} (the pages log in with the
   * token once and keep a session cookie) and is the approver that token names.
   *
   * @param approversByToken token to approver name; neither blank, names of at most {@link
   *     Limits#DECIDED_BY_CHARS} characters
   */
  public static ConsoleAuth tokens(Map<String, String> approversByToken) {
    return new ConsoleAuth(Kind.TOKEN, checkedTokens(approversByToken), null, null, null);
  }

  private static Map<String, String> checkedTokens(Map<String, String> approversByToken) {
    if (approversByToken.isEmpty()) {
      throw new IllegalArgumentException("token authentication needs at least one token");
    }
    approversByToken.forEach(
        (token, approver) -> {
          if (token == null || token.isBlank() || approver == null || approver.isBlank()) {
            throw new IllegalArgumentException("tokens and approver names must not be blank");
          }
          String problem = approverProblem(approver);
          if (problem != null) {
            throw new IllegalArgumentException(problem);
          }
        });
    return Map.copyOf(approversByToken);
  }

  /**
   * The tokens of a file: one {@code APPROVER TOKEN} pair per line, blank lines and lines starting
   * with {@code #} ignored. The file is read again when it changes (looked at once a second at
   * most), so a token added or removed takes effect without a restart: a removed token, and the
   * pages' logins made with it, are refused from then on. A changed file that cannot be read or
   * holds a line that is no pair is logged and ignored, and the tokens read before stay; one that
   * holds no token refuses every caller.
   *
   * @throws IllegalArgumentException naming the line that is not such a pair, a repeated token or
   *     an approver name over {@link Limits#DECIDED_BY_CHARS} characters, or when the file holds no
   *     token
   * @throws UncheckedIOException when the file cannot be read
   */
  public static ConsoleAuth tokensFile(Path file) {
    Map<String, String> tokens = readTokens(file);
    if (tokens.isEmpty()) {
      throw new IllegalArgumentException(file + " holds no token");
    }
    return new ConsoleAuth(Kind.TOKEN, checkedTokens(tokens), null, null, file);
  }

  private static Map<String, String> readTokens(Path file) {
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
      String problem = approverProblem(fields[0]);
      if (problem != null) {
        throw new IllegalArgumentException(file + " line " + (i + 1) + ": " + problem);
      }
      if (tokens.put(fields[1], fields[0]) != null) {
        throw new IllegalArgumentException(
            file + " line " + (i + 1) + ": this token is given twice");
      }
    }
    return tokens;
  }

  /** Why an approver's name cannot decide (it is every decision's {@code decidedBy}), or null. */
  private static String approverProblem(String approver) {
    if (approver.length() > Limits.DECIDED_BY_CHARS) {
      return "the approver name is "
          + approver.length()
          + " characters, over the limit of "
          + Limits.DECIDED_BY_CHARS;
    }
    return null;
  }

  /**
   * Reads the tokens file again if it changed since it was read; keeps the old tokens on errors.
   */
  private void reloadIfChanged() {
    long now = System.nanoTime();
    if (now - checkedAt < RELOAD_CHECK.toNanos()) {
      return;
    }
    synchronized (this) {
      if (now - checkedAt < RELOAD_CHECK.toNanos()) {
        return;
      }
      checkedAt = now;
      String version = version(tokensFile);
      if (version.equals(fileVersion)) {
        return;
      }
      fileVersion = version;
      try {
        Map<String, String> tokens = readTokens(tokensFile);
        approversByToken = Map.copyOf(tokens);
        log.info("read {} tokens from {}", tokens.size(), tokensFile);
      } catch (IllegalArgumentException | UncheckedIOException e) {
        log.warn("kept the tokens read before: {}", e.getMessage());
      }
    }
  }

  /** What tells a change of {@code file}: its modification time and size, or "missing". */
  private static String version(Path file) {
    try {
      return Files.getLastModifiedTime(file).toMillis() + "/" + Files.size(file);
    } catch (IOException e) {
      return "missing";
    }
  }

  /**
   * A reverse proxy in front of the console authenticates the user and names them in {@code header}
   * (e.g. {@code X-Forwarded-User}); a request without it is refused. Only safe when nothing but
   * the proxy can reach the console. A name over {@link Limits#DECIDED_BY_CHARS} characters is
   * refused (401), as it could not decide.
   */
  public static ConsoleAuth trustedHeader(String header) {
    Objects.requireNonNull(header, "header");
    if (!header.matches("[A-Za-z0-9-]+")) {
      throw new IllegalArgumentException("not an HTTP header name: '" + header + "'");
    }
    return new ConsoleAuth(Kind.PROXY, Map.of(), header, null, null);
  }

  /** How requests are authenticated. */
  public Kind kind() {
    return kind;
  }

  /** The approver a bearer token names, or null for a token this authentication does not hold. */
  public String approverOf(String token) {
    if (token == null) {
      return null;
    }
    if (tokensFile != null) {
      reloadIfChanged();
    }
    return approversByToken.get(token);
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
