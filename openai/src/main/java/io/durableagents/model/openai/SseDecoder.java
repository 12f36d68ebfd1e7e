package io.durableagents.model.openai;

import java.util.function.Consumer;

/**
 * Turns the lines of a {@code text/event-stream} body into the data of its events, per the HTML
 * server-sent events rules: {@code data:} lines of one event are joined with newlines and the event
 * is dispatched at the blank line that ends it; comments ({@code :...}) and other fields ({@code
 * event}, {@code id}, {@code retry}) are ignored.
 */
final class SseDecoder {
  private final Consumer<String> events;
  private final StringBuilder data = new StringBuilder();
  private boolean hasData;

  SseDecoder(Consumer<String> events) {
    this.events = events;
  }

  /** One line, without its line terminator. */
  void line(String line) {
    if (line.isEmpty()) {
      dispatch();
      return;
    }
    if (line.charAt(0) == ':') {
      return;
    }
    int colon = line.indexOf(':');
    String field = colon < 0 ? line : line.substring(0, colon);
    if (!"data".equals(field)) {
      return;
    }
    String value = colon < 0 ? "" : line.substring(colon + 1);
    if (value.startsWith(" ")) {
      value = value.substring(1);
    }
    if (hasData) {
      data.append('\n');
    }
    data.append(value);
    hasData = true;
  }

  /**
   * The body ended: the data of an event still open (no blank line after it), or null. Some servers
   * end with {@code data: [DONE]} and no blank line; a cut stream may end inside a chunk.
   */
  String drain() {
    if (!hasData) {
      return null;
    }
    String event = data.toString();
    data.setLength(0);
    hasData = false;
    return event;
  }

  private void dispatch() {
    if (!hasData) {
      return;
    }
    events.accept(drain());
  }
}
