package io.durableagents.activities.internal;

import io.durableagents.workflow.Message;
import io.durableagents.workflow.TranscriptHash;
import io.durableagents.workflow.activity.CheckpointSave;
import io.durableagents.workflow.activity.ModelTurnRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The transcripts this worker sent to the model most recently, so that the next turn of a session
 * need not read the store again.
 *
 * <p>What a turn sends is remembered only when it agrees with the workflow: read from the store,
 * its hash chain must equal the request's {@code transcriptHash}. The next turn of the same
 * workflow execution uses it when the saves folded into that turn continue it without a gap up
 * to exactly the request's stored count; every message after the remembered ones comes from those
 * saves, which the workflow wrote. A turn served by another worker meanwhile leaves a gap, a fork
 * or a reused session id has another execution id, and a request of older workflow code has
 * neither: all of these read the store. Bounded by the number of messages held, least recently
 * used first out.
 */
final class TranscriptCache {
  /** Messages held over all sessions by default. */
  static final int DEFAULT_MAX_MESSAGES = 20_000;

  /** What a turn of execution {@code executionId} sent to the model. Never modified once built. */
  private record Entry(String executionId, List<Message> messages) {}

  private final int maxMessages;
  private final Map<String, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
  private int heldMessages;

  TranscriptCache(int maxMessages) {
    this.maxMessages = maxMessages;
  }

  /**
   * The stored transcript of {@code request}'s session (its first {@code storedMessages}
   * messages): the remembered one continued by the request's folded saves when it can be, else
   * what {@code store} reads.
   */
  List<Message> storedTranscript(ModelTurnRequest request, Supplier<List<Message>> store) {
    if (request.transcriptHash() == null || request.executionId() == null) {
      return store.get();
    }
    Entry remembered = entry(request.sessionId());
    List<Message> continued =
        remembered != null && remembered.executionId().equals(request.executionId())
            ? continued(remembered.messages(), request)
            : null;
    if (continued != null) {
      put(request, withNewMessages(continued, request));
      return Collections.unmodifiableList(continued);
    }
    List<Message> read = store.get();
    List<Message> sent = withNewMessages(read, request);
    if (TranscriptHash.of(sent).equals(request.transcriptHash())) {
      put(request, sent);
    } else {
      forget(request.sessionId());
    }
    return read;
  }

  /**
   * {@code remembered} continued by the request's folded saves, or null when they leave a gap or
   * do not reach the request's stored count. A save restates the messages the previous turn
   * received as new, so it may overlap the end of what is remembered: the save's copy wins.
   */
  private static List<Message> continued(List<Message> remembered, ModelTurnRequest request) {
    List<Message> messages = new ArrayList<>(remembered);
    for (CheckpointSave save : request.foldedSaves()) {
      if (save.firstSeq() > messages.size()) {
        return null;
      }
      messages.subList(save.firstSeq(), messages.size()).clear();
      messages.addAll(save.newMessages());
    }
    return messages.size() == request.storedMessages() ? messages : null;
  }

  private static List<Message> withNewMessages(List<Message> stored, ModelTurnRequest request) {
    List<Message> messages = new ArrayList<>(stored.size() + request.newMessages().size());
    messages.addAll(stored);
    messages.addAll(request.newMessages());
    return messages;
  }

  private synchronized Entry entry(String sessionId) {
    return entries.get(sessionId);
  }

  private synchronized void put(ModelTurnRequest request, List<Message> sent) {
    String sessionId = request.sessionId();
    if (sent.size() > maxMessages) {
      forget(sessionId);
      return;
    }
    Entry previous =
        entries.put(sessionId, new Entry(Objects.requireNonNull(request.executionId()), sent));
    heldMessages += sent.size() - (previous == null ? 0 : previous.messages().size());
    Iterator<Map.Entry<String, Entry>> oldestFirst = entries.entrySet().iterator();
    while (heldMessages > maxMessages && oldestFirst.hasNext()) {
      Map.Entry<String, Entry> oldest = oldestFirst.next();
      if (!oldest.getKey().equals(sessionId)) {
        heldMessages -= oldest.getValue().messages().size();
        oldestFirst.remove();
      }
    }
  }

  synchronized void forget(String sessionId) {
    Entry removed = entries.remove(sessionId);
    if (removed != null) {
      heldMessages -= removed.messages().size();
    }
  }

  synchronized int sessions() {
    return entries.size();
  }
}
