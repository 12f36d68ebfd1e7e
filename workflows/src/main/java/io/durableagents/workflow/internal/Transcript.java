package io.durableagents.workflow.internal;

import io.durableagents.conversation.Message;
import io.durableagents.workflow.internal.wire.TranscriptHash;
import java.util.ArrayList;
import java.util.List;

/**
 * The workflow's view of the transcript: how many messages the store already holds, the messages
 * produced since the last checkpoint save, and a hash chain over every message. The stored prefix
 * is never kept in workflow memory or in any payload; the chain lets the workflow recognise a
 * re-sent history without it.
 */
final class Transcript {
  private int stored;
  private final List<Message> unsaved = new ArrayList<>();
  private String chain = TranscriptHash.EMPTY;

  /** Starts from a transcript already in the store (a fork, or a continued session). */
  void restore(int storedMessages, String transcriptHash) {
    stored = storedMessages;
    unsaved.clear();
    chain = transcriptHash == null ? TranscriptHash.EMPTY : transcriptHash;
  }

  int stored() {
    return stored;
  }

  int size() {
    return stored + unsaved.size();
  }

  String chain() {
    return chain;
  }

  List<Message> unsaved() {
    return List.copyOf(unsaved);
  }

  boolean hasUnsaved() {
    return !unsaved.isEmpty();
  }

  void add(Message message) {
    unsaved.add(message);
    chain = TranscriptHash.link(chain, message);
  }

  /** Marks the unsaved messages as written by a completed checkpoint save. */
  void markSaved() {
    stored += unsaved.size();
    unsaved.clear();
  }

  /** True when {@code messages} starts with this whole transcript. */
  boolean isPrefixOf(List<Message> messages) {
    if (size() == 0 || messages.size() < size()) {
      return false;
    }
    return TranscriptHash.of(messages.subList(0, size())).equals(chain);
  }
}
