package io.durableagents.model.openai;

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
 * A Chat Completions server on 127.0.0.1 for tests: answers {@code POST /v1/chat/completions} with
 * the scripted replies in order, byte for byte, and records every request. Shared (as this module's
 * test jar) with the tests of the providers that reach OpenAI's API through another library.
 */
public final class FakeChatCompletionsServer implements AutoCloseable {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** What the server writes for one request. */
  @FunctionalInterface
  public interface Reply {
    /** Writes the reply to one request. */
    void write(HttpExchange exchange) throws IOException, InterruptedException;
  }

  /** One request as received. */
  public record Recorded(
      String method, String path, Map<String, List<String>> headers, String body) {
    /** The body as JSON. */
    public JsonNode json() {
      try {
        return MAPPER.readTree(body);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** The first value of a header, by case-insensitive name. */
    public String header(String name) {
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
  private volatile int contextWindow;

  /** A server on a free loopback port, started. */
  public FakeChatCompletionsServer() {
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

  /** The base URL to configure: {@code http://127.0.0.1:PORT/v1}. */
  public String baseUrl() {
    return rootUrl() + "/v1";
  }

  /**
   * The server's root, {@code http://127.0.0.1:PORT}, for clients that add {@code /v1} themselves.
   */
  public String rootUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Queues the replies to the next requests, in order. */
  public FakeChatCompletionsServer reply(Reply... next) {
    replies.addAll(List.of(next));
    return this;
  }

  /**
   * From now on, refuses as OpenAI does (HTTP 400 {@code context_length_exceeded}) every chat
   * request over {@code tokens}, counted as a real model's tokenizer roughly would: four characters
   * of the request body a token. A refused request takes no scripted reply.
   */
  public FakeChatCompletionsServer contextWindow(int tokens) {
    contextWindow = tokens;
    return this;
  }

  /** The requests received so far, in order. */
  public List<Recorded> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try {
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      requests.add(
          new Recorded(
              exchange.getRequestMethod(),
              exchange.getRequestURI().getPath(),
              Map.copyOf(exchange.getRequestHeaders()),
              body));
      int window = contextWindow;
      if (window > 0 && body.length() / 4 > window) {
        tooLong(window, body.length() / 4).write(exchange);
        return;
      }
      Reply reply = replies.poll();
      if (reply == null || !"/v1/chat/completions".equals(exchange.getRequestURI().getPath())) {
        status(
                500,
                Map.of("Content-Type", "application/json"),
                "{\"error\":{\"message\":\"no reply scripted\"}}")
            .write(exchange);
      } else {
        reply.write(exchange);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      // the client went away
    } finally {
      exchange.close();
    }
  }

  /** OpenAI's refusal of a request of {@code tokens} for a model of {@code window}. */
  private static Reply tooLong(int window, int tokens) {
    String message =
        "This model's maximum context length is "
            + window
            + " tokens. However, your messages resulted in "
            + tokens
            + " tokens. Please reduce the length of the messages.";
    return status(
        400,
        Map.of("Content-Type", "application/json"),
        "{\"error\":{\"message\":"
            + Wire.quote(message)
            + ",\"type\":\"invalid_request_error\",\"param\":\"messages\","
            + "\"code\":\"context_length_exceeded\"}}");
  }

  /** A 200 event stream with exactly this body (the wire text, blank lines included). */
  public static Reply stream(String wire) {
    return exchange -> {
      exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
      exchange.sendResponseHeaders(200, 0);
      OutputStream out = exchange.getResponseBody();
      // Event by event, flushed, as a streaming server sends them.
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
  public static Reply status(int status, Map<String, String> headers, String body) {
    return exchange -> {
      headers.forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
      if (bytes.length > 0) {
        exchange.getResponseBody().write(bytes);
      }
    };
  }

  /**
   * A stream that never finishes on its own: {@code first}, then {@code " more"} every {@code
   * everyMillis} for up to a minute. {@code hungUp} counts down when a write fails because the
   * client closed the connection.
   */
  public static Reply endless(String first, long everyMillis, CountDownLatch hungUp) {
    return exchange -> {
      exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
      exchange.sendResponseHeaders(200, 0);
      OutputStream out = exchange.getResponseBody();
      long end = System.nanoTime() + java.time.Duration.ofMinutes(1).toNanos();
      try {
        out.write(
            Wire.chunk("{\"role\":\"assistant\",\"content\":" + Wire.quote(first) + "}", null)
                .getBytes(StandardCharsets.UTF_8));
        out.flush();
        while (System.nanoTime() < end) {
          Thread.sleep(everyMillis);
          out.write(Wire.chunk("{\"content\":\" more\"}", null).getBytes(StandardCharsets.UTF_8));
          out.flush();
        }
      } catch (IOException e) {
        hungUp.countDown();
      }
    };
  }

  /** Sends nothing for {@code millis}, then {@code then}. */
  public static Reply delayed(long millis, Reply then) {
    return exchange -> {
      Thread.sleep(millis);
      then.write(exchange);
    };
  }

  /** A complete (not streamed) chat completion: what a blocking client receives. */
  public static Reply completion(String json) {
    return status(200, Map.of("Content-Type", "application/json"), json);
  }

  /** Sends nothing until {@code release} opens (a minute at most), then {@code then}. */
  public static Reply held(CountDownLatch release, Reply then) {
    return exchange -> {
      if (release.await(1, TimeUnit.MINUTES)) {
        then.write(exchange);
      }
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
