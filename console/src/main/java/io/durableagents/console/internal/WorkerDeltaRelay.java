package io.durableagents.console.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings the deltas of workers in other processes to a console: for a watched session, it follows
 * each worker's events endpoint ({@code agents worker --http-port}: {@code GET
 * BASE/sessions/{id}/events}) and hands every {@code delta} event to a sink. A worker that is down
 * or restarts is followed again while the session is watched.
 */
final class WorkerDeltaRelay {
  /** What receives a relayed delta. */
  interface Sink {
    void delta(String sessionId, int step, int attempt, String kind, String text);
  }

  private static final Logger log = LoggerFactory.getLogger(WorkerDeltaRelay.class);
  private static final Duration RETRY = Duration.ofSeconds(2);

  private final List<URI> workers;
  private final ObjectMapper json;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  WorkerDeltaRelay(List<URI> workers, ObjectMapper json) {
    this.workers = List.copyOf(workers);
    this.json = json;
  }

  /** Follows {@code sessionId} on every worker until the returned handle is closed. */
  AutoCloseable follow(String sessionId, Sink sink) {
    List<Follower> followers = new ArrayList<>();
    for (URI worker : workers) {
      URI events =
          worker.resolve(
              "sessions/" + URLEncoder.encode(sessionId, StandardCharsets.UTF_8) + "/events");
      Follower follower = new Follower(sessionId, events, sink);
      followers.add(follower);
      follower.connect();
    }
    return () -> followers.forEach(Follower::stop);
  }

  private final class Follower {
    private final String sessionId;
    private final URI events;
    private final Sink sink;
    private volatile boolean stopped;
    private volatile CompletableFuture<HttpResponse<Stream<String>>> response;

    Follower(String sessionId, URI events, Sink sink) {
      this.sessionId = sessionId;
      this.events = events;
      this.sink = sink;
    }

    void connect() {
      if (stopped) {
        return;
      }
      HttpRequest request =
          HttpRequest.newBuilder(events).header("Accept", "text/event-stream").GET().build();
      response = http.sendAsync(request, HttpResponse.BodyHandlers.ofLines());
      // The callback handles every outcome itself, so nothing waits for the future it returns.
      CompletableFuture<?> unused =
          response.whenComplete(
              (answer, failure) -> {
                if (failure == null) {
                  try (Stream<String> lines = answer.body()) {
                    lines.takeWhile(line -> !stopped).forEach(this::line);
                  } catch (RuntimeException e) {
                    log.debug("deltas of {} from {} ended", sessionId, events, e);
                  }
                }
                if (!stopped) {
                  CompletableFuture.delayedExecutor(RETRY.toMillis(), TimeUnit.MILLISECONDS)
                      .execute(this::connect);
                }
              });
    }

    private void line(String line) {
      if (!line.startsWith("data:")) {
        return; // event names, comments and blank lines: the worker sends only delta events
      }
      try {
        JsonNode delta = json.readTree(line.substring(5).strip());
        sink.delta(
            sessionId,
            delta.path("step").asInt(),
            delta.path("attempt").asInt(),
            delta.path("kind").asText("text"),
            delta.path("text").asText(""));
      } catch (IOException e) {
        log.debug("a delta of {} from {} is not JSON: {}", sessionId, events, line);
      }
    }

    void stop() {
      stopped = true;
      CompletableFuture<HttpResponse<Stream<String>>> current = response;
      if (current != null) {
        current.cancel(true);
        CompletableFuture<?> unused = current.thenAccept(answer -> answer.body().close());
      }
    }
  }
}
