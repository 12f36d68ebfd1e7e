package io.durableagents.store.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.conversation.Message;
import io.durableagents.store.StoreException;

/**
 * Messages to the JSON kept in {@code agent_messages.body}; the read model ({@link
 * io.durableagents.projection.internal.ProjectionQueries}) decodes them.
 */
public final class MessageCodec {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private MessageCodec() {}

  public static String encode(Message message) {
    try {
      return MAPPER.writeValueAsString(message);
    } catch (JsonProcessingException e) {
      throw new StoreException("cannot serialize a " + message.role() + " message to JSON", e);
    }
  }
}
