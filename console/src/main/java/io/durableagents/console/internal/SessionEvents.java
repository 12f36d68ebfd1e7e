package io.durableagents.console.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.client.HistoryEntry;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SessionRow;
import io.javalin.http.sse.SseClient;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server-sent events of session pages: {@code status} events from the projection's checkpoint
 * history (stored, so a client that reconnects with {@code Last-Event-ID} misses none) and {@code
 * delta} events that the worker's process hands to {@link #publishDelta} (never stored).
 *
 * <p>One poller checks the session row of every watched session each {@link #POLL}: cheap, and it
 * reads the history only when the row moved.
 */
public final class SessionEvents implements AutoCloseable {
  static final Duration POLL = Duration.ofMillis(300);
  private static final Logger log = LoggerFactory.getLogger(SessionEvents.class);

  private final ProjectionReader projection;
  private final ObjectMapper json;
  private final Map<String, Set<Watcher>> watchers = new ConcurrentHashMap<>();
  private final ScheduledExecutorService poller =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "console-session-events");
            thread.setDaemon(true);
            return thread;
          });

  private final WorkerDeltaRelay relay;
  private final Map<String, AutoCloseable> relayed = new ConcurrentHashMap<>();

  /**
   * @param workerEvents the events endpoints of workers in other processes to relay deltas from
   *     (empty: deltas come from {@link #publishDelta} only)
   */
  public SessionEvents(ProjectionReader projection, ObjectMapper json, List<URI> workerEvents) {
    this.projection = projection;
    this.json = json;
    this.relay = workerEvents.isEmpty() ? null : new WorkerDeltaRelay(workerEvents, json);
    ScheduledFuture<?> unused =
        poller.scheduleWithFixedDelay(
            this::poll, POLL.toMillis(), POLL.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** A client of {@code GET /api/sessions/{id}/events}; {@code lastEventId} is the step it saw. */
  public void connect(String sessionId, SseClient client, int lastEventId) {
    Watcher watcher = new Watcher(sessionId, client, lastEventId);
    watchers.computeIfAbsent(sessionId, id -> ConcurrentHashMap.newKeySet()).add(watcher);
    if (relay != null) {
      relayed.computeIfAbsent(sessionId, id -> relay.follow(id, this::publishDelta));
    }
    client.onClose(() -> remove(watcher));
    client.keepAlive();
    watcher.comment("connected"); // sends the headers now: the client knows the stream is open
    poller.execute(() -> catchUp(watcher, projection.session(sessionId)));
  }

  /** A delta of a model turn of {@code sessionId}, for the clients watching that session now. */
  public void publishDelta(String sessionId, int step, int attempt, String kind, String text) {
    Set<Watcher> watching = watchers.get(sessionId);
    if (watching == null || watching.isEmpty()) {
      return;
    }
    Map<String, Object> delta = new LinkedHashMap<>();
    delta.put("sessionId", sessionId);
    delta.put("step", step);
    delta.put("attempt", attempt);
    delta.put("kind", kind);
    delta.put("text", text);
    String data = write(delta);
    for (Watcher watcher : watching) {
      watcher.send("delta", data, null);
    }
  }

  private void poll() {
    for (Set<Watcher> watching : watchers.values()) {
      if (watching.isEmpty()) {
        continue;
      }
      String sessionId = watching.iterator().next().sessionId;
      try {
        Optional<SessionRow> row = projection.session(sessionId);
        for (Watcher watcher : watching) {
          catchUp(watcher, row);
        }
      } catch (RuntimeException e) {
        log.debug("cannot read session {} for its events", sessionId, e);
      }
    }
    for (Watcher watcher : List.copyOf(allWatchers())) {
      watcher.keepAliveIfIdle();
    }
  }

  /** Sends the watcher the checkpoints it has not seen, oldest first, when the session moved. */
  private void catchUp(Watcher watcher, Optional<SessionRow> row) {
    if (row.isEmpty()) {
      return;
    }
    SessionRow session = row.get();
    String mark = session.lastStep() + "/" + session.status() + "/" + session.updatedAt();
    if (mark.equals(watcher.seen)) {
      return;
    }
    List<HistoryEntry> entries = new ArrayList<>(projection.history(watcher.sessionId, 50));
    entries.sort(Comparator.comparingInt(HistoryEntry::step));
    for (HistoryEntry entry : entries) {
      if (entry.step() == watcher.lastStep && watcher.lastSavedAt == Watcher.UNKNOWN) {
        watcher.lastSavedAt = entry.savedAt(); // the entry of its Last-Event-ID, which it has
        continue;
      }
      boolean newStep = entry.step() > watcher.lastStep;
      boolean sameStepChanged =
          entry.step() == watcher.lastStep && entry.savedAt() > watcher.lastSavedAt;
      if (newStep || sameStepChanged) {
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("sessionId", watcher.sessionId);
        status.put("step", entry.step());
        status.put("run", entry.checkpoint().run());
        status.put("status", entry.status().value());
        status.put("finishReason", entry.checkpoint().finishReason());
        status.put("savedAt", entry.savedAt());
        watcher.send("status", write(status), Integer.toString(entry.step()));
        watcher.lastStep = entry.step();
        watcher.lastSavedAt = entry.savedAt();
      }
    }
    watcher.seen = mark;
  }

  private List<Watcher> allWatchers() {
    List<Watcher> all = new ArrayList<>();
    watchers.values().forEach(all::addAll);
    return all;
  }

  private void remove(Watcher watcher) {
    watchers.computeIfPresent(
        watcher.sessionId,
        (id, watching) -> {
          watching.remove(watcher);
          if (watching.isEmpty()) {
            stopRelaying(id);
            return null;
          }
          return watching;
        });
  }

  private void stopRelaying(String sessionId) {
    AutoCloseable following = relayed.remove(sessionId);
    if (following != null) {
      try {
        following.close();
      } catch (Exception e) {
        log.debug("stopping the deltas of {}", sessionId, e);
      }
    }
  }

  private String write(Object value) {
    try {
      return json.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    poller.shutdownNow();
    for (Watcher watcher : allWatchers()) {
      watcher.client.close();
    }
    watchers.clear();
    List.copyOf(relayed.keySet()).forEach(this::stopRelaying);
  }

  /** One connected client; sends are serialized, as the poller and the worker's deltas race. */
  private static final class Watcher {
    private static final long KEEP_ALIVE_MS = 15_000;
    private static final long UNKNOWN = -1;
    final String sessionId;
    final SseClient client;
    volatile int lastStep;
    volatile long lastSavedAt;
    volatile String seen;
    private long lastSendMs = System.currentTimeMillis();

    Watcher(String sessionId, SseClient client, int lastEventId) {
      this.sessionId = sessionId;
      this.client = client;
      this.lastStep = lastEventId;
      this.lastSavedAt = lastEventId >= 0 ? UNKNOWN : 0;
    }

    synchronized void send(String event, String data, String id) {
      if (!client.terminated()) {
        if (id == null) {
          client.sendEvent(event, data);
        } else {
          client.sendEvent(event, data, id);
        }
        lastSendMs = System.currentTimeMillis();
      }
    }

    synchronized void comment(String text) {
      if (!client.terminated()) {
        client.sendComment(text);
      }
    }

    synchronized void keepAliveIfIdle() {
      if (!client.terminated() && System.currentTimeMillis() - lastSendMs > KEEP_ALIVE_MS) {
        client.sendComment("keep-alive");
        lastSendMs = System.currentTimeMillis();
      }
    }
  }
}
