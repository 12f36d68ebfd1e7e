package io.durableagents.store.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.store.StoreException;
import io.durableagents.workflow.Message;
import java.io.IOException;

/** Messages to and from the JSON kept in {@code agent_messages.body}, and other JSON columns. */
public final class MessageCodec {
  private static final ObjectMapper MAPPER =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private MessageCodec() {}

  public static String encode(Message message) {
    try {
      return MAPPER.writeValueAsString(message);
    } catch (JsonProcessingException e) {
      throw new StoreException("cannot serialize a " + message.role() + " message to JSON", e);
    }
  }

  public static Message decode(String sessionId, int seq, String body) {
    try {
      return nonNull(sessionId, seq, MAPPER.readValue(body, Message.class));
    } catch (JsonProcessingException e) {
      throw invalid(sessionId, seq, e);
    }
  }

  /** {@link #decode(String, int, String)} from the body's UTF-8 bytes: no String built first. */
  public static Message decode(String sessionId, int seq, byte[] utf8Body) {
    try {
      return nonNull(sessionId, seq, MAPPER.readValue(utf8Body, Message.class));
    } catch (IOException e) {
      throw invalid(sessionId, seq, e);
    }
  }

  private static Message nonNull(String sessionId, int seq, Message message) {
    if (message == null) {
      throw new StoreException("message " + seq + " of session " + sessionId + " is stored as JSON null");
    }
    return message;
  }

  private static StoreException invalid(String sessionId, int seq, IOException e) {
    return new StoreException(
        "message " + seq + " of session " + sessionId + " is not a valid message JSON", e);
  }

  /** A JSON column's value: null stays null. */
  public static JsonNode readJson(String text) {
    if (text == null) {
      return null;
    }
    try {
      return MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      throw new StoreException("a stored JSON column is not valid JSON", e);
    }
  }
}
