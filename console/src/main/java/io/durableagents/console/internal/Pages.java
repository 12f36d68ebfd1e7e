package io.durableagents.console.internal;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The pages: static HTML shells whose scripts call the API, served from the classpath with the
 * headers that keep anything but the console's own scripts from running.
 */
public final class Pages {
  /**
   * On every response: only the console's own scripts, styles and API (no inline script, so text
   * that slipped into the markup still could not run), no framing, no sniffing, no referrer.
   */
  public static final Map<String, String> SECURITY_HEADERS =
      Map.of(
          "Content-Security-Policy",
          "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
              + " connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
          "X-Content-Type-Options",
          "nosniff",
          "X-Frame-Options",
          "DENY",
          "Referrer-Policy",
          "no-referrer");

  private final String assets;
  private final Guard guard;
  private final Map<String, byte[]> cache = new ConcurrentHashMap<>();

  public Pages(String assets, Guard guard) {
    this.assets = assets;
    this.guard = guard;
  }

  public void inbox(Context ctx) {
    page(ctx, "inbox.html");
  }

  public void sessions(Context ctx) {
    page(ctx, "sessions.html");
  }

  public void session(Context ctx) {
    ReadHandlers.sessionId(ctx); // a page for a valid id only
    page(ctx, "session.html");
  }

  /** {@code GET /api/openapi.json}. */
  public void openApi(Context ctx) {
    ctx.contentType("application/json").result(resource("/io/durableagents/console/openapi.json"));
  }

  private void page(Context ctx, String file) {
    guard.issueCsrfCookie(ctx);
    ctx.header("Cache-Control", "no-cache");
    ctx.contentType("text/html; charset=utf-8").result(resource(assets + "/" + file));
  }

  private byte[] resource(String path) {
    return cache.computeIfAbsent(
        path,
        name -> {
          try (InputStream in = Pages.class.getResourceAsStream(name)) {
            if (in == null) {
              throw new IllegalStateException("the console's jar lacks " + name);
            }
            return in.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }
}
