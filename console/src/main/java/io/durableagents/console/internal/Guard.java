package io.durableagents.console.internal;

import io.durableagents.console.ConsoleAuth;
import io.durableagents.workflow.Limits;
import io.javalin.http.Context;
import io.javalin.http.Cookie;
import io.javalin.http.HandlerType;
import io.javalin.http.SameSite;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who calls, and whether a browser meant to: authentication of every API request, and CSRF
 * protection of every post.
 *
 * <p>Identity: a bearer token, the login cookie the pages hold, the trusted proxy's header, or the
 * console's local user; see {@link ConsoleAuth}. CSRF: a request that authenticates with a bearer
 * token cannot be forged by another site (browsers do not attach it), so it needs nothing more. Any
 * other post must either echo the {@value #CSRF_COOKIE} cookie in the {@value #CSRF_HEADER} header
 * (what the pages do) or, carrying none of the console's cookies, be a JSON post that is not from
 * another origin: another site's form cannot send {@code application/json}, and its scripts cannot
 * without a CORS preflight, which the console never grants.
 */
public final class Guard {
  public static final String CSRF_COOKIE = "agents_csrf";
  public static final String CSRF_HEADER = "X-CSRF-Token";
  public static final String LOGIN_COOKIE = "agents_session";
  private static final String IDENTITY = "identity";

  private final ConsoleAuth auth;
  private final Duration loginTimeout;
  private final Map<String, Login> logins = new ConcurrentHashMap<>();
  private final SecureRandom random = new SecureRandom();

  /** A page's login: whose, with which token, and until when. */
  private record Login(String approver, String token, Instant expires) {
    boolean expiredAt(Instant now) {
      return !now.isBefore(expires);
    }
  }

  public Guard(ConsoleAuth auth, Duration loginTimeout) {
    this.auth = auth;
    this.loginTimeout = loginTimeout;
  }

  /** The caller's identity, which {@link #authenticate} found. */
  public static String identity(Context ctx) {
    return ctx.attribute(IDENTITY);
  }

  /** Before every API request but the public ones: who calls, else 401. */
  public void authenticate(Context ctx) {
    String identity =
        switch (auth.kind()) {
          case LOCAL -> auth.localIdentity();
          case PROXY -> {
            String user = ctx.header(auth.header());
            if (user == null || user.isBlank()) {
              throw ApiException.unauthorized(
                  "no user in the " + auth.header() + " header of the trusted proxy");
            }
            yield proxyIdentity(user.strip());
          }
          case TOKEN -> tokenIdentity(ctx);
        };
    ctx.attribute(IDENTITY, identity);
  }

  /**
   * The proxy's user, who must fit the {@code decidedBy} of a decision: refused here, at once,
   * rather than at every decision.
   */
  private String proxyIdentity(String user) {
    if (user.length() > Limits.DECIDED_BY_CHARS) {
      throw ApiException.unauthorized(
          "the user in the "
              + auth.header()
              + " header of the trusted proxy is "
              + user.length()
              + " characters, over the limit of "
              + Limits.DECIDED_BY_CHARS
              + " for an approver's name");
    }
    return user;
  }

  private String tokenIdentity(Context ctx) {
    String token = bearer(ctx);
    if (token != null) {
      String approver = auth.approverOf(token);
      if (approver == null) {
        throw ApiException.unauthorized("the bearer token is not one the console knows");
      }
      return approver;
    }
    String cookie = ctx.cookie(LOGIN_COOKIE);
    Login login = cookie == null ? null : logins.get(cookie);
    if (login == null) {
      throw ApiException.unauthorized(
          "authentication required: send 'Authorization: Bearer TOKEN', or log in");
    }
    if (login.expiredAt(Instant.now())) {
      logins.remove(cookie);
      throw ApiException.unauthorized("the login has expired: log in again");
    }
    if (!login.approver().equals(auth.approverOf(login.token()))) {
      logins.remove(cookie);
      throw ApiException.unauthorized("the token of this login is no longer valid: log in again");
    }
    return login.approver();
  }

  /** Before every post: refuses one another site could have made the browser send (403). */
  public void checkCsrf(Context ctx) {
    if (!HandlerType.POST.equals(ctx.method()) || bearer(ctx) != null) {
      return;
    }
    String header = ctx.header(CSRF_HEADER);
    String cookie = ctx.cookie(CSRF_COOKIE);
    if (header != null) {
      if (cookie == null || !constantTimeEquals(header, cookie)) {
        throw ApiException.csrf("the " + CSRF_HEADER + " header does not match the CSRF cookie");
      }
      return;
    }
    if (cookie != null || ctx.cookie(LOGIN_COOKIE) != null) {
      throw ApiException.csrf("a browser post needs the " + CSRF_HEADER + " header");
    }
    String type = ctx.contentType();
    if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
      throw ApiException.csrf("posts without the CSRF header must be application/json");
    }
    String origin = ctx.header("Origin");
    if (origin != null && !sameOrigin(origin, ctx.host())) {
      throw ApiException.csrf("a post from another origin: " + origin);
    }
  }

  /** Gives a browser its CSRF cookie, the first time it loads a page. */
  public void issueCsrfCookie(Context ctx) {
    if (ctx.cookie(CSRF_COOKIE) == null) {
      Cookie cookie = new Cookie(CSRF_COOKIE, randomToken());
      cookie.setPath("/");
      cookie.setSameSite(SameSite.STRICT);
      ctx.cookie(cookie);
    }
  }

  /** {@code POST /api/login}: a valid token becomes an HttpOnly login cookie for the pages. */
  public String login(Context ctx, String token) {
    if (auth.kind() != ConsoleAuth.Kind.TOKEN) {
      throw ApiException.badRequest("token", "this console does not use tokens");
    }
    String approver = auth.approverOf(token);
    if (approver == null) {
      throw ApiException.unauthorized("the token is not one the console knows");
    }
    Instant now = Instant.now();
    // Forgotten logins go when they expire, so the table holds only live ones.
    logins.values().removeIf(login -> login.expiredAt(now));
    String login = randomToken();
    logins.put(login, new Login(approver, token, now.plus(loginTimeout)));
    Cookie cookie = new Cookie(LOGIN_COOKIE, login);
    cookie.setPath("/");
    cookie.setHttpOnly(true);
    cookie.setSameSite(SameSite.STRICT);
    // Whole seconds, rounded up: a cookie with Max-Age=0 would be dropped at once.
    long seconds = Math.max(1, (loginTimeout.toMillis() + 999) / 1000);
    cookie.setMaxAge((int) Math.min(Integer.MAX_VALUE, seconds));
    ctx.cookie(cookie);
    return approver;
  }

  /** {@code POST /api/logout}: ends the page's login, if it has one, and drops its cookie. */
  public void logout(Context ctx) {
    String cookie = ctx.cookie(LOGIN_COOKIE);
    if (cookie != null) {
      logins.remove(cookie);
      ctx.removeCookie(LOGIN_COOKIE, "/");
    }
  }

  private static String bearer(Context ctx) {
    String header = ctx.header("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return null;
    }
    String token = header.substring(7).strip();
    return token.isEmpty() ? null : token;
  }

  private static boolean sameOrigin(String origin, String host) {
    try {
      URI uri = URI.create(origin);
      String originHost = uri.getPort() < 0 ? uri.getHost() : uri.getHost() + ":" + uri.getPort();
      return originHost != null && originHost.equalsIgnoreCase(host);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static boolean constantTimeEquals(String a, String b) {
    return MessageDigest.isEqual(
        a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  private String randomToken() {
    byte[] bytes = new byte[24];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }
}
