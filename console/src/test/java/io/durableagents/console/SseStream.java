package io.durableagents.console;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A connected {@code text/event-stream}, parsed into events on a reader thread as they arrive. */
final class SseStream implements AutoCloseable {
  /** One event: {@code id} is null when the event has none. */
  record Event(String id, String event, String data) {}

  final HttpResponse<InputStream> response;
  private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private final Thread reader;

  private SseStream(HttpResponse<InputStream> response) {
    this.response = response;
    this.reader = new Thread(this::read, "sse-reader");
    reader.setDaemon(true);
    reader.start();
  }

  static SseStream connect(Http http, String path, String... headers) {
    HttpResponse<InputStream> response =
        http.send(
            Http.withHeaders(http.request(path).GET(), headers)
                .header("Accept", "text/event-stream")
                .timeout(Duration.ofMinutes(2))
                .build(),
            HttpResponse.BodyHandlers.ofInputStream());
    return new SseStream(response);
  }

  private void read() {
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
      String id = null;
      String event = null;
      StringBuilder data = null;
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        if (line.isEmpty()) {
          if (data != null) {
            events.add(new Event(id, event == null ? "message" : event, data.toString()));
          }
          id = null;
          event = null;
          data = null;
        } else if (line.startsWith("id:")) {
          id = line.substring(3).strip();
        } else if (line.startsWith("event:")) {
          event = line.substring(6).strip();
        } else if (line.startsWith("data:")) {
          String value = line.substring(5);
          value = value.startsWith(" ") ? value.substring(1) : value;
          data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
        }
        // Lines starting with ':' are comments (keep-alives).
      }
    } catch (IOException e) {
      // Closed by the test (or the server): the events read so far stay.
    }
  }

  /** The next event, or an AssertionError after {@code timeout}. */
  Event next(Duration timeout) {
    try {
      Event event = events.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (event == null) {
        throw new AssertionError("no event within " + timeout);
      }
      return event;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** The next event within {@code timeout}, or null. */
  Event poll(Duration timeout) {
    try {
      return events.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  @Override
  public void close() {
    try {
      response.body().close();
    } catch (IOException e) {
      // Closing is best effort; the reader thread is a daemon.
    }
    reader.interrupt();
  }
}
