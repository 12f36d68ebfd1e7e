package io.durableagents.store.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.store.StoreException;
import io.durableagents.workflow.Message;

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
      Message message = MAPPER.readValue(body, Message.class);
      if (message == null) {
        throw new StoreException(
            "message " + seq + " of session " + sessionId + " is stored as JSON null");
      }
      return message;
    } catch (JsonProcessingException e) {
      throw new StoreException(
          "message " + seq + " of session " + sessionId + " is not a valid message JSON", e);
    }
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
