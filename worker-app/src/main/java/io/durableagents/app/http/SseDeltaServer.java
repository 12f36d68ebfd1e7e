package io.durableagents.app.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.durableagents.streaming.Delta;
import io.durableagents.streaming.DeltaListener;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The worker's server-sent events endpoint: {@code GET /sessions/{id}/events} on 127.0.0.1 streams
 * the text and reasoning deltas of that session's model turns, as this worker process executes
 * them, as {@code text/event-stream}:
 *
 * <pre>
 * event: delta
 * data: {"sessionId":"chat-1","step":1,"attempt":1,"kind":"text","text":"Sunny in"}
 * </pre>
 *
 * <p>It is a {@link DeltaListener}: register it with the plugin and it fans each delta out to the
 * clients connected for its session. Only deltas produced after a client connects reach it (deltas
 * are never stored); the stored transcript is the record. A client that does not keep up (more than
 * {@value #CLIENT_BUFFER} deltas behind) is disconnected rather than slowing the model turn; it can
 * reconnect. A comment line every {@link #KEEP_ALIVE} keeps proxies from closing an idle stream and
 * lets the server notice clients that went away.
 *
 * <pre>{@code
 * SseDeltaServer events = SseDeltaServer.start(8233);
 * AgentsPluginOptions.newBuilder()...addDeltaListener(events)...build();
 * // curl -N http://127.0.0.1:8233/sessions/chat-1/events
 * }</pre>
 */
public final class SseDeltaServer implements DeltaListener, AutoCloseable {
  /** Session ids as the client accepts them: letters, digits and {@code . _ : @ -}, 1 to 200. */
  public static final Pattern SESSION_ID = Pattern.compile("[A-Za-z0-9._:@-]{1,200}");

  /** Deltas a client may be behind before it is disconnected. */
  public static final int CLIENT_BUFFER = 10_000;

  /** At most this many clients at once; more are answered 503. */
  public static final int MAX_CLIENTS = 256;

  static final Duration KEEP_ALIVE = Duration.ofSeconds(15);

  private static final Pattern PATH = Pattern.compile("/sessions/([^/]+)/events/?");
  private static final Object END = new Object();
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final HttpServer server;
  private final ExecutorService executor;
  private final Map<String, Set<Client>> clients = new ConcurrentHashMap<>();
  private final AtomicInteger connected = new AtomicInteger();
  private volatile boolean closed;

  private SseDeltaServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * Listens on 127.0.0.1:{@code port} (0: a free port, see {@link #port()}).
   *
   * @throws UncheckedIOException when the port cannot be bound
   */
  public static SseDeltaServer start(int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("HTTP port must be between 0 and 65535, got " + port);
    }
    HttpServer server;
    try {
      server =
          HttpServer.create(
              new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), port), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot listen on 127.0.0.1:" + port + ": " + e.getMessage(), e);
    }
    AtomicInteger threads = new AtomicInteger();
    ExecutorService executor =
        Executors.newCachedThreadPool(
            task -> {
              Thread thread = new Thread(task, "agents-sse-" + threads.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    SseDeltaServer sse = new SseDeltaServer(server, executor);
    server.setExecutor(executor);
    server.createContext("/", sse::handle);
    server.start();
    return sse;
  }

  /** The port it listens on. */
  public int port() {
    return server.getAddress().getPort();
  }

  /** {@code http://127.0.0.1:PORT/sessions/{id}/events}. */
  public String eventsUrl(String sessionId) {
    return "http://127.0.0.1:" + port() + "/sessions/" + sessionId + "/events";
  }

  /** Clients connected now, over all sessions. */
  public int clientCount() {
    return connected.get();
  }

  @Override
  public void onDelta(Delta delta) {
    Set<Client> watching = clients.get(delta.sessionId());
    if (watching == null) {
      return;
    }
    for (Client client : watching) {
      client.offer(delta);
    }
  }

  private void handle(HttpExchange exchange) {
    try {
      Matcher path = PATH.matcher(exchange.getRequestURI().getPath());
      if (!path.matches() || !SESSION_ID.matcher(path.group(1)).matches()) {
        plain(
            exchange,
            404,
            "Not found. Deltas stream at GET /sessions/{id}/events, the session id being 1-200"
                + " letters, digits and . _ : @ -\n");
        return;
      }
      if (!"GET".equals(exchange.getRequestMethod())) {
        exchange.getResponseHeaders().set("Allow", "GET");
        plain(exchange, 405, "Use GET.\n");
        return;
      }
      if (closed) {
        plain(exchange, 503, "The worker is shutting down.\n");
        return;
      }
      if (connected.incrementAndGet() > MAX_CLIENTS) {
        connected.decrementAndGet();
        plain(exchange, 503, "Too many event streams open; try again later.\n");
        return;
      }
      try {
        stream(exchange, path.group(1));
      } finally {
        connected.decrementAndGet();
      }
    } catch (IOException e) {
      // the client went away
    } finally {
      exchange.close();
    }
  }

  private void stream(HttpExchange exchange, String sessionId) throws IOException {
    Client client = new Client();
    clients.computeIfAbsent(sessionId, id -> new CopyOnWriteArraySet<>()).add(client);
    try {
      exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
      exchange.getResponseHeaders().set("Cache-Control", "no-cache");
      exchange.getResponseHeaders().set("X-Accel-Buffering", "no");
      exchange.sendResponseHeaders(200, 0);
      OutputStream body = exchange.getResponseBody();
      write(body, ": deltas of session " + sessionId + "\n\n");
      while (!closed) {
        Object next = client.queue.poll(KEEP_ALIVE.toMillis(), TimeUnit.MILLISECONDS);
        if (next == END) {
          break;
        }
        write(
            body,
            next == null
                ? ": keep-alive\n\n"
                : "event: delta\ndata: " + json((Delta) next) + "\n\n");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      clients.computeIfPresent(
          sessionId,
          (id, set) -> {
            set.remove(client);
            return set.isEmpty() ? null : set;
          });
    }
  }

  private static void write(OutputStream body, String text) throws IOException {
    body.write(text.getBytes(StandardCharsets.UTF_8));
    body.flush();
  }

  static String json(Delta delta) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("sessionId", delta.sessionId());
    node.put("step", delta.step());
    node.put("attempt", delta.attempt());
    node.put("kind", delta.kind());
    node.put("text", delta.text());
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("A delta did not serialize", e);
    }
  }

  private static void plain(HttpExchange exchange, int status, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  /** Ends every stream and stops listening. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (Set<Client> set : clients.values()) {
      set.forEach(Client::end);
    }
    server.stop(0);
    executor.shutdownNow();
  }

  /** One connected client: the deltas not written to it yet. */
  private static final class Client {
    final BlockingQueue<Object> queue = new LinkedBlockingQueue<>(CLIENT_BUFFER + 1);
    private volatile boolean ended;

    void offer(Delta delta) {
      if (ended) {
        return;
      }
      if (queue.remainingCapacity() <= 1 || !queue.offer(delta)) {
        end(); // too slow: disconnect rather than hold up the model turn or grow without bound
      }
    }

    void end() {
      ended = true;
      queue.clear();
      queue.offer(END);
    }
  }
}
