package io.durableagents.workflow.internal.wire;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.conversation.Message;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * A hash chain over a transcript: lets the workflow recognise a re-sent conversation without
 * holding it. Pure and deterministic; the worker computes the same chain for a forked transcript.
 */
public final class TranscriptHash {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TranscriptHash() {}

  /** The chain value of an empty transcript. */
  public static final String EMPTY = "";

  public static String of(List<Message> messages) {
    String chain = EMPTY;
    for (Message message : messages) {
      chain = link(chain, message);
    }
    return chain;
  }

  public static String link(String previous, Message message) {
    try {
      return linkJson(previous, JSON.writeValueAsBytes(message));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot hash a message", e);
    }
  }

  /**
   * {@link #link} of a message already serialized by a default Jackson {@code ObjectMapper}, as the
   * store keeps message bodies: the same bytes, so the same chain.
   */
  public static String linkJson(String previous, byte[] messageJson) {
    try {
      MessageDigest digest = (MessageDigest) SHA_256.clone();
      digest.update(previous.getBytes(StandardCharsets.UTF_8));
      digest.update(messageJson);
      return HexFormat.of().formatHex(digest.digest());
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("Cannot hash a message", e);
    }
  }

  /** Cloned for each hash: cheaper than looking the algorithm up among the providers again. */
  private static final MessageDigest SHA_256 = sha256();

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }
}
