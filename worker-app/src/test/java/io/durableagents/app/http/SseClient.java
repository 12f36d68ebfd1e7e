package io.durableagents.app.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** A test client of an event stream: collects {@code event: delta} data, in order. */
final class SseClient implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final CompletableFuture<HttpResponse<Stream<String>>> response;
  private final List<JsonNode> deltas = new ArrayList<>();
  private String event;

  private SseClient(String url) {
    response =
        HttpClient.newHttpClient()
            .sendAsync(
                HttpRequest.newBuilder(URI.create(url)).header("Accept", "text/event-stream").build(),
                HttpResponse.BodyHandlers.ofLines());
    response.thenAccept(
        r ->
            new Thread(
                    () -> {
                      try (Stream<String> body = r.body()) {
                        body.forEach(lines::add);
                      } catch (UncheckedIOException e) {
                        // closed
                      }
                    },
                    "sse-test-client")
                .start());
  }

  /** Connects and waits until the server has registered the stream (its first comment line). */
  static SseClient connect(String url) throws Exception {
    SseClient client = new SseClient(url);
    HttpResponse<Stream<String>> response = client.response.get(10, TimeUnit.SECONDS);
    if (response.statusCode() != 200) {
      throw new IllegalStateException("status " + response.statusCode());
    }
    String first = client.lines.poll(10, TimeUnit.SECONDS);
    if (first == null || !first.startsWith(":")) {
      throw new IllegalStateException("expected the opening comment, got " + first);
    }
    return client;
  }

  /** Reads until the text deltas received so far concatenate to at least {@code length} chars. */
  List<JsonNode> awaitText(int length, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (text().length() < length) {
      long left = deadline - System.nanoTime();
      String line = lines.poll(Math.max(1, left), TimeUnit.NANOSECONDS);
      if (line == null) {
        break;
      }
      take(line);
    }
    return List.copyOf(deltas);
  }

  /** Reads whatever arrives within {@code wait}. */
  List<JsonNode> drain(Duration wait) throws InterruptedException {
    String line;
    while ((line = lines.poll(wait.toMillis(), TimeUnit.MILLISECONDS)) != null) {
      take(line);
    }
    return List.copyOf(deltas);
  }

  String text() {
    StringBuilder text = new StringBuilder();
    for (JsonNode delta : deltas) {
      if ("text".equals(delta.path("kind").asText())) {
        text.append(delta.path("text").asText());
      }
    }
    return text.toString();
  }

  private void take(String line) {
    if (line.startsWith("event:")) {
      event = line.substring("event:".length()).strip();
    } else if (line.startsWith("data:") && "delta".equals(event)) {
      try {
        deltas.add(JSON.readTree(line.substring("data:".length())));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    } else if (line.isEmpty()) {
      event = null;
    }
  }

  @Override
  public void close() {
    response.thenAccept(r -> r.body().close());
    response.cancel(true);
  }
}
