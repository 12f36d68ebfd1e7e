package io.durableagents.app.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.util.function.Predicate;
import java.util.stream.Stream;

/** A test client of an event stream: collects {@code event: delta} data, in order. */
final class SseClient implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final CompletableFuture<HttpResponse<Stream<String>>> response;
  private final List<JsonNode> deltas = new ArrayList<>();
  private String event;

  /** Whether the body has ended (the server closed the stream, or the client did). */
  private volatile boolean ended;

  // connect() waits for response itself; the stage thenAccept returns only starts the reader.
  @SuppressWarnings("FutureReturnValueIgnored")
  private SseClient(String url) {
    response =
        HttpClient.newHttpClient()
            .sendAsync(
                HttpRequest.newBuilder(URI.create(url))
                    .header("Accept", "text/event-stream")
                    .build(),
                HttpResponse.BodyHandlers.ofLines());
    response.thenAccept(
        r ->
            new Thread(
                    () -> {
                      try (Stream<String> body = r.body()) {
                        body.forEach(lines::add);
                      } catch (UncheckedIOException e) {
                        // closed
                      } finally {
                        ended = true;
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
  List<JsonNode> awaitText(int length, Duration timeout) {
    await("text deltas of %d characters or more".formatted(length))
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(10))
        .pollDelay(Duration.ZERO)
        .pollInSameThread()
        .untilAsserted(() -> assertThat(takeArrived().text()).hasSizeGreaterThanOrEqualTo(length));
    return List.copyOf(deltas);
  }

  /**
   * Reads until a delta that {@code wanted} accepts ({@code what}) has arrived, and returns every
   * delta read, that one last: a delta the test itself published proves that all published before
   * it were read.
   */
  List<JsonNode> awaitDelta(String what, Predicate<JsonNode> wanted, Duration timeout) {
    await(what)
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(10))
        .pollDelay(Duration.ZERO)
        .pollInSameThread()
        .until(() -> takeArrived().deltas.stream().anyMatch(wanted));
    return List.copyOf(deltas);
  }

  /** Waits until the server has ended the stream, and reads what it sent before. */
  List<JsonNode> awaitEnd(Duration timeout) {
    await("the end of the event stream")
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(10))
        .pollDelay(Duration.ZERO)
        .pollInSameThread()
        .until(() -> ended);
    return List.copyOf(takeArrived().deltas);
  }

  /** Takes the lines that have arrived, without waiting. */
  private SseClient takeArrived() {
    String line;
    while ((line = lines.poll()) != null) {
      take(line);
    }
    return this;
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

  // Closes the body whenever it arrives; nobody waits for that.
  @SuppressWarnings("FutureReturnValueIgnored")
  @Override
  public void close() {
    response.thenAccept(r -> r.body().close());
    response.cancel(true);
  }
}
