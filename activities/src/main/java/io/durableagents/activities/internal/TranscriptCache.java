package io.durableagents.activities.internal;

import io.durableagents.workflow.Message;
import io.durableagents.workflow.TranscriptHash;
import io.durableagents.workflow.activity.CheckpointSave;
import io.durableagents.workflow.activity.ModelTurnRequest;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The transcripts this worker sent to the model most recently, so that the next turn of a session
 * need not read the store again. An entry is used only when the saves folded into the turn extend
 * it exactly to the request's stored count and the hash chain over it and the turn's new messages
 * equals the workflow's: a session served by another worker meanwhile, a fork, a session id
 * reused after a delete, or a repaired store all miss and read the store. Bounded by the number
 * of messages held, least recently used first out.
 */
final class TranscriptCache {
  /** Messages held over all sessions by default. */
  static final int DEFAULT_MAX_MESSAGES = 20_000;

  /** The messages, and the hash chain after each of them. */
  private record Entry(List<Message> messages, List<String> chains) {}

  private final int maxMessages;
  private final Map<String, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
  private int heldMessages;

  TranscriptCache(int maxMessages) {
    this.maxMessages = maxMessages;
  }

  /**
   * The stored transcript of {@code request}'s session (its first {@code storedMessages}
   * messages), or null when this worker cannot vouch for it.
   */
  synchronized List<Message> stored(ModelTurnRequest request) {
    Entry entry = entries.get(request.sessionId());
    if (entry == null || request.transcriptHash() == null) {
      return null;
    }
    List<Message> known = new ArrayList<>(entry.messages());
    List<String> chains = new ArrayList<>(entry.chains());
    for (CheckpointSave save : request.foldedSaves()) {
      // A save restates the messages the previous turn received as new: it may overlap the end
      // of the remembered transcript, but must not leave a gap.
      if (save.firstSeq() > known.size()) {
        return null;
      }
      known.subList(save.firstSeq(), known.size()).clear();
      chains.subList(save.firstSeq(), chains.size()).clear();
      save.newMessages().forEach(message -> append(known, chains, message));
    }
    if (known.size() != request.storedMessages()) {
      return null;
    }
    String chain = chains.isEmpty() ? TranscriptHash.EMPTY : chains.get(chains.size() - 1);
    for (Message message : request.newMessages()) {
      chain = TranscriptHash.link(chain, message);
    }
    return chain.equals(request.transcriptHash()) ? known : null;
  }

  private static void append(List<Message> messages, List<String> chains, Message message) {
    String previous = chains.isEmpty() ? TranscriptHash.EMPTY : chains.get(chains.size() - 1);
    messages.add(message);
    chains.add(TranscriptHash.link(previous, message));
  }

  /**
   * Remembers the transcript a turn of {@code request} sent to the model: the stored messages
   * ({@code stored}, vouched for by the request's hash chain or read from the store) followed by
   * the request's new messages.
   */
  synchronized void remember(ModelTurnRequest request, List<Message> stored) {
    int size = stored.size() + request.newMessages().size();
    if (request.transcriptHash() == null || size == 0 || size > maxMessages) {
      forget(request.sessionId());
      return;
    }
    Entry previous = entries.get(request.sessionId());
    List<Message> messages = new ArrayList<>(size);
    List<String> chains = new ArrayList<>(size);
    int reused = 0;
    if (previous != null) {
      // Chain values of the messages this worker already hashed are kept, not recomputed.
      List<Message> before = previous.messages();
      while (reused < before.size() && reused < stored.size() && same(before.get(reused), stored.get(reused))) {
        reused++;
      }
      messages.addAll(before.subList(0, reused));
      chains.addAll(previous.chains().subList(0, reused));
    }
    stored.subList(reused, stored.size()).forEach(message -> append(messages, chains, message));
    request.newMessages().forEach(message -> append(messages, chains, message));
    if (!chains.get(chains.size() - 1).equals(request.transcriptHash())) {
      forget(request.sessionId());
      return;
    }
    entries.put(request.sessionId(), new Entry(List.copyOf(messages), List.copyOf(chains)));
    heldMessages += size - (previous == null ? 0 : previous.messages().size());
    Iterator<Map.Entry<String, Entry>> oldestFirst = entries.entrySet().iterator();
    while (heldMessages > maxMessages && oldestFirst.hasNext()) {
      Map.Entry<String, Entry> oldest = oldestFirst.next();
      if (!oldest.getKey().equals(request.sessionId())) {
        heldMessages -= oldest.getValue().messages().size();
        oldestFirst.remove();
      }
    }
  }

  /** Messages served from this cache are the very objects it holds: most compare by identity. */
  private static boolean same(Message a, Message b) {
    return a == b || a.equals(b);
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
