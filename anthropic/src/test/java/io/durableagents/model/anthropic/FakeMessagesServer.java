package io.durableagents.model.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A Messages API server on 127.0.0.1 for tests: answers {@code POST /v1/messages} with the scripted
 * replies in order, byte for byte, and records every request. Like the real API it refuses a
 * request without an {@code x-api-key} (401) or an {@code anthropic-version} header (400).
 */
final class FakeMessagesServer implements AutoCloseable {
  static final String API_KEY = "sk-ant-test-key";

  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** What the server writes for one request. */
  @FunctionalInterface
  interface Reply {
    void write(HttpExchange exchange) throws IOException, InterruptedException;
  }

  /** One request as received. */
  record Recorded(String method, String path, Map<String, List<String>> headers, String body) {
    JsonNode json() {
      try {
        return MAPPER.readTree(body);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** The first value of a header, by case-insensitive name. */
    String header(String name) {
      return headers.entrySet().stream()
          .filter(e -> e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty())
          .map(e -> e.getValue().get(0))
          .findFirst()
          .orElse(null);
    }
  }

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final Queue<Reply> replies = new ConcurrentLinkedQueue<>();
  private final List<Recorded> requests = Collections.synchronizedList(new ArrayList<>());

  FakeMessagesServer() {
    try {
      server =
          HttpServer.create(
              new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  /** The base URL to configure: {@code http://127.0.0.1:PORT}. */
  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  FakeMessagesServer reply(Reply... next) {
    replies.addAll(List.of(next));
    return this;
  }

  List<Recorded> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try {
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      Recorded recorded =
          new Recorded(
              exchange.getRequestMethod(),
              exchange.getRequestURI().getPath(),
              Map.copyOf(exchange.getRequestHeaders()),
              body);
      requests.add(recorded);
      if (!API_KEY.equals(recorded.header("x-api-key"))) {
        error(401, "authentication_error", "invalid x-api-key").write(exchange);
      } else if (recorded.header("anthropic-version") == null) {
        error(400, "invalid_request_error", "anthropic-version: header is required")
            .write(exchange);
      } else if (!"POST".equals(recorded.method()) || !"/v1/messages".equals(recorded.path())) {
        error(404, "not_found_error", "Not found: " + recorded.path()).write(exchange);
      } else {
        Reply reply = replies.poll();
        if (reply == null) {
          error(500, "api_error", "no reply scripted").write(exchange);
        } else {
          reply.write(exchange);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      // the client went away
    } finally {
      exchange.close();
    }
  }

  /** A 200 event stream with exactly this body, written and flushed event by event. */
  static Reply stream(String wire) {
    return exchange -> {
      exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
      exchange.sendResponseHeaders(200, 0);
      OutputStream out = exchange.getResponseBody();
      for (String event : wire.split("(?<=\n\n)", -1)) {
        if (event.isEmpty()) {
          continue; // what follows a closing blank line
        }
        out.write(event.getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
    };
  }

  /** A response with a status, headers and a body of known length. */
  static Reply status(int status, Map<String, String> headers, String body) {
    return exchange -> {
      headers.forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
      if (bytes.length > 0) {
        exchange.getResponseBody().write(bytes);
      }
    };
  }

  /** An Anthropic error body ({@code {"type":"error","error":{...}}}) with this status. */
  static Reply error(int status, String type, String message) {
    return status(
        status, Map.of("Content-Type", "application/json"), Wire.errorBody(type, message));
  }

  /**
   * A stream that never finishes on its own: message_start and a text block with {@code first},
   * then {@code " more"} every {@code everyMillis} for up to a minute. {@code hungUp} counts down
   * when a write fails because the client closed the connection.
   */
  static Reply endless(String first, long everyMillis, CountDownLatch hungUp) {
    return exchange -> {
      exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
      exchange.sendResponseHeaders(200, 0);
      OutputStream out = exchange.getResponseBody();
      long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
      try {
        out.write(
            (Wire.messageStart(5) + Wire.textStart(0) + Wire.textDelta(0, first))
                .getBytes(StandardCharsets.UTF_8));
        out.flush();
        while (System.nanoTime() < end) {
          Thread.sleep(everyMillis);
          out.write(Wire.textDelta(0, " more").getBytes(StandardCharsets.UTF_8));
          out.flush();
        }
      } catch (IOException e) {
        hungUp.countDown();
      }
    };
  }

  /**
   * Sends the headers and message_start, then nothing until the client hangs up (a write of a ping
   * every 100 ms fails then, counting down {@code hungUp}); ends after a minute.
   */
  static Reply silentAfterStart(CountDownLatch hungUp, long pingEveryMillis, boolean ping) {
    return exchange -> {
      exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
      exchange.sendResponseHeaders(200, 0);
      OutputStream out = exchange.getResponseBody();
      long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
      try {
        out.write(Wire.messageStart(5).getBytes(StandardCharsets.UTF_8));
        out.flush();
        while (System.nanoTime() < end) {
          Thread.sleep(pingEveryMillis);
          // An SSE comment reaches the client's socket but no event reaches the provider.
          out.write((ping ? Wire.ping() : ": keep-alive\n\n").getBytes(StandardCharsets.UTF_8));
          out.flush();
        }
      } catch (IOException e) {
        hungUp.countDown();
      }
    };
  }

  /** Sends nothing for {@code millis}, then {@code then}. */
  static Reply delayed(long millis, Reply then) {
    return exchange -> {
      Thread.sleep(millis);
      then.write(exchange);
    };
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
