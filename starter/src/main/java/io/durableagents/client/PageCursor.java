package io.durableagents.client;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The opaque cursor of a list page: where the page ended, a time and an id ({@code TIME:ID}), as
 * URL-safe base64.
 */
final class PageCursor {
  /** Where a page ended: the sort time and the id of its last row. */
  record Position(long time, String id) {}

  private PageCursor() {}

  static String encode(long time, String id) {
    String plain = time + ":" + id;
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(plain.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The position {@code cursor} holds.
   *
   * @param list what the cursor pages, for the error: "the session list"
   */
  static Position decode(String cursor, String list) {
    try {
      String plain = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
      int colon = plain.indexOf(':');
      String id = plain.substring(colon + 1);
      if (colon <= 0 || id.isEmpty()) {
        throw new IllegalArgumentException("no position");
      }
      return new Position(Long.parseLong(plain.substring(0, colon)), id);
    } catch (IllegalArgumentException e) { // NumberFormatException is one too
      throw new IllegalArgumentException("not a cursor of " + list + ": '" + cursor + "'", e);
    }
  }
}
