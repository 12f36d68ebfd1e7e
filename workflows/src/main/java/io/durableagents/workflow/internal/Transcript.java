package io.durableagents.workflow.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.workflow.Message;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The workflow's view of the transcript: how many messages the store already holds, the messages
 * produced since the last checkpoint save, and a hash chain over every message. The stored prefix
 * is never kept in workflow memory or in any payload; the chain lets the workflow recognise a
 * re-sent history without it.
 */
final class Transcript {
  private static final ObjectMapper JSON = new ObjectMapper();

  private int stored;
  private final List<Message> unsaved = new ArrayList<>();
  private String chain = "";

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
    chain = link(chain, message);
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
    String candidate = "";
    for (int i = 0; i < size(); i++) {
      candidate = link(candidate, messages.get(i));
    }
    return candidate.equals(chain);
  }

  private static String link(String previous, Message message) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      digest.update(previous.getBytes(StandardCharsets.UTF_8));
      digest.update(JSON.writeValueAsBytes(message));
      return HexFormat.of().formatHex(digest.digest());
    } catch (NoSuchAlgorithmException | JsonProcessingException e) {
      throw new IllegalStateException("Cannot hash a message", e);
    }
  }
}
