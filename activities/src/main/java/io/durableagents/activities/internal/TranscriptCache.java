package io.durableagents.activities.internal;

import io.durableagents.conversation.Message;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.workflow.internal.MessageSize;
import io.durableagents.workflow.internal.activity.ModelTurnRequest;
import io.durableagents.workflow.internal.activity.TurnSaves;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.durableagents.workflow.internal.wire.TranscriptHash;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The transcripts this worker sent to the model most recently, so that the next turn of a session
 * need not read the store again.
 *
 * <p>What a turn sends is remembered only when it agrees with the workflow: read from the store,
 * its hash chain must equal the request's {@code transcriptHash}. The next turn of the same
 * workflow execution uses it when the saves folded into that turn continue it without a gap up to
 * exactly the request's stored count; every message after the remembered ones comes from those
 * saves, which the workflow wrote. A turn served by another worker meanwhile leaves a gap, a fork
 * or a reused session id has another execution id, and a request of older workflow code has
 * neither: all of these read the store. Bounded by the characters held (texts, arguments, results),
 * least recently used first out; a transcript over the bound is not kept.
 *
 * <p>It also keeps the saves that turns on this worker held (left unwritten) since the session's
 * last write, so that the turn that writes them needs only their steps, not their content again.
 */
public final class TranscriptCache {
  /**
   * What a turn of execution {@code executionId} sent to the model, with the estimated size of each
   * message, and the saves that turns on this worker held since the last write (their messages are
   * among {@code messages}). Never modified once built.
   */
  private record Entry(
      String executionId,
      List<Message> messages,
      List<Integer> sizes,
      long chars,
      List<CheckpointSave> held) {
    Entry withHeld(List<CheckpointSave> saves) {
      return new Entry(executionId, messages, sizes, chars, saves);
    }
  }

  private final long maxChars;
  private final Map<String, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
  private long heldChars;

  /**
   * A cache of {@code maxChars} characters, shared by one worker's model turns and fork
   * preparations.
   */
  public TranscriptCache(long maxChars) {
    this.maxChars = maxChars;
  }

  /** A cache of the default bound. */
  public TranscriptCache() {
    this(AgentsPluginOptions.DEFAULT_TRANSCRIPT_CACHE_CHARS);
  }

  /**
   * The first messages of the remembered transcript of execution {@code executionId} of the
   * session, at most {@code count}; empty when none is remembered. Everything remembered came from
   * the store or from saves the workflow wrote, so it is what the store holds at those positions: a
   * fork of a session this worker served reads only the rest.
   */
  List<Message> prefix(String sessionId, String executionId, int count) {
    Entry remembered = entry(sessionId);
    if (remembered == null || !remembered.executionId().equals(executionId)) {
      return List.of();
    }
    List<Message> messages = remembered.messages();
    return List.copyOf(messages.subList(0, Math.min(count, messages.size())));
  }

  /**
   * Remembers {@code stored} as the stored transcript of execution {@code executionId} of the
   * session: what a fork's preparation has just written, and hashed for the workflow. The fork's
   * first model turn then need not read it back.
   */
  void remember(String sessionId, String executionId, List<Message> stored) {
    put(sessionId, measured(executionId, List.copyOf(stored)));
  }

  /**
   * The stored transcript of {@code request}'s session (its first {@code storedMessages} messages):
   * the remembered one continued by the request's folded saves when it can be, else what {@code
   * store} reads.
   */
  List<Message> storedTranscript(ModelTurnRequest request, Supplier<List<Message>> store) {
    if (request.transcriptHash() == null || request.executionId() == null) {
      return store.get();
    }
    Entry remembered = entry(request.sessionId());
    Entry continued =
        remembered != null && remembered.executionId().equals(request.executionId())
            ? continued(remembered, request)
            : null;
    if (continued != null) {
      put(
          request.sessionId(),
          withNewMessages(continued, request).withHeld(heldAfter(remembered, request)));
      return Collections.unmodifiableList(continued.messages());
    }
    List<Message> read = store.get();
    Entry sent = withNewMessages(measured(request.executionId(), read), request);
    if (TranscriptHash.of(sent.messages()).equals(request.transcriptHash())) {
      put(request.sessionId(), sent);
    } else {
      forget(request.sessionId());
    }
    return read;
  }

  /**
   * The saves this worker held for the request's session from the turns that carried them, when
   * they are exactly those of the request's {@code heldSteps}; else null (another worker served
   * them, this one forgot them, or the request does not write held saves).
   */
  List<CheckpointSave> heldSaves(ModelTurnRequest request) {
    Entry remembered = entry(request.sessionId());
    if (!(request.saves() instanceof TurnSaves.WriteHeld writeHeld)
        || remembered == null
        || !remembered.executionId().equals(request.executionId())) {
      return null;
    }
    List<Integer> steps = remembered.held().stream().map(CheckpointSave::step).toList();
    return steps.equals(writeHeld.heldSteps()) ? remembered.held() : null;
  }

  /**
   * What stays held after the request: a turn that holds adds its saves (replacing any of the same
   * steps, as a retried attempt carries them again); any other turn writes them all.
   */
  private static List<CheckpointSave> heldAfter(Entry remembered, ModelTurnRequest request) {
    if (!request.saves().holds()) {
      return List.of();
    }
    List<CheckpointSave> carried = request.foldedSaves();
    int firstNew = carried.isEmpty() ? Integer.MAX_VALUE : carried.get(0).step();
    List<CheckpointSave> held = new ArrayList<>();
    for (CheckpointSave save : remembered.held()) {
      if (save.step() < firstNew) {
        held.add(save);
      }
    }
    held.addAll(carried);
    return List.copyOf(held);
  }

  /**
   * {@code remembered} continued by the request's folded saves, or null when they leave a gap or do
   * not reach the request's stored count. A save restates the messages the previous turn received
   * as new, so it may overlap the end of what is remembered: the save's copy wins.
   */
  private static Entry continued(Entry remembered, ModelTurnRequest request) {
    List<Message> messages = new ArrayList<>(remembered.messages());
    List<Integer> sizes = new ArrayList<>(remembered.sizes());
    long chars = remembered.chars();
    for (CheckpointSave save : request.foldedSaves()) {
      if (save.firstSeq() > messages.size()) {
        return null;
      }
      List<Integer> replaced = sizes.subList(save.firstSeq(), sizes.size());
      chars -= replaced.stream().mapToLong(Integer::longValue).sum();
      replaced.clear();
      messages.subList(save.firstSeq(), messages.size()).clear();
      chars += append(messages, sizes, save.newMessages());
    }
    return messages.size() == request.storedMessages()
        ? new Entry(remembered.executionId(), messages, sizes, chars, remembered.held())
        : null;
  }

  private static Entry measured(String executionId, List<Message> stored) {
    List<Message> messages = new ArrayList<>(stored.size());
    List<Integer> sizes = new ArrayList<>(stored.size());
    long chars = append(messages, sizes, stored);
    return new Entry(executionId, messages, sizes, chars, List.of());
  }

  private static Entry withNewMessages(Entry stored, ModelTurnRequest request) {
    if (request.newMessages().isEmpty()) {
      return stored;
    }
    List<Message> messages = new ArrayList<>(stored.messages());
    List<Integer> sizes = new ArrayList<>(stored.sizes());
    long chars = stored.chars() + append(messages, sizes, request.newMessages());
    return new Entry(stored.executionId(), messages, sizes, chars, stored.held());
  }

  /** Appends {@code added} with their sizes; answers the characters added. */
  private static long append(List<Message> messages, List<Integer> sizes, List<Message> added) {
    long chars = 0;
    for (Message message : added) {
      int size = MessageSize.chars(message);
      messages.add(message);
      sizes.add(size);
      chars += size;
    }
    return chars;
  }

  private synchronized Entry entry(String sessionId) {
    return entries.get(sessionId);
  }

  private synchronized void put(String sessionId, Entry entry) {
    if (entry.chars() > maxChars) {
      forget(sessionId);
      return;
    }
    Entry previous = entries.put(sessionId, entry);
    heldChars += entry.chars() - (previous == null ? 0 : previous.chars());
    Iterator<Map.Entry<String, Entry>> oldestFirst = entries.entrySet().iterator();
    while (heldChars > maxChars && oldestFirst.hasNext()) {
      Map.Entry<String, Entry> oldest = oldestFirst.next();
      if (!oldest.getKey().equals(sessionId)) {
        heldChars -= oldest.getValue().chars();
        oldestFirst.remove();
      }
    }
  }

  synchronized void forget(String sessionId) {
    Entry removed = entries.remove(sessionId);
    if (removed != null) {
      heldChars -= removed.chars();
    }
  }

  synchronized int sessions() {
    return entries.size();
  }
}
