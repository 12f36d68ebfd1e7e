package io.durableagents.client;

import io.durableagents.projection.ProjectionQueries.SessionKey;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** The opaque cursor of a session list page: where the page ended, as URL-safe base64. */
final class SessionCursor {
  private SessionCursor() {}

  static String encode(SessionKey key) {
    String plain = key.updatedAt() + ":" + key.sessionId();
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(plain.getBytes(StandardCharsets.UTF_8));
  }

  static SessionKey decode(String cursor) {
    try {
      String plain = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
      int colon = plain.indexOf(':');
      String sessionId = plain.substring(colon + 1);
      if (colon <= 0 || sessionId.isEmpty()) {
        throw new IllegalArgumentException("no position");
      }
      return new SessionKey(Long.parseLong(plain.substring(0, colon)), sessionId);
    } catch (IllegalArgumentException e) { // NumberFormatException is one too
      throw new IllegalArgumentException("not a cursor of the session list: '" + cursor + "'", e);
    }
  }
}
