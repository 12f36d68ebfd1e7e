package io.durableagents.workflow.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Attachment;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.ToolCall;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;

/**
 * Roughly how many characters a message holds (its text, tool calls, result and attachment
 * references), without serializing it: what a cache of messages, or the saves a session holds back,
 * count against their bound. Deterministic, so workflow code may use it.
 */
public final class MessageSize {
  /** What a message costs besides its strings: the record, its lists, small fields. */
  private static final long OVERHEAD = 64;

  private MessageSize() {}

  public static int chars(Message message) {
    long chars =
        OVERHEAD
            + length(message.text())
            + length(message.toolCallId())
            + length(message.toolName());
    for (ToolCall call : message.toolCalls()) {
      chars += OVERHEAD + length(call.id()) + length(call.name()) + chars(call.arguments());
    }
    chars += chars(message.result());
    for (Attachment attachment : message.attachments()) {
      chars +=
          OVERHEAD
              + length(attachment.artifactId())
              + length(attachment.name())
              + length(attachment.mediaType());
    }
    return (int) Math.min(Integer.MAX_VALUE, chars);
  }

  /** Texts and field names of a JSON tree, plus a few characters per node. */
  public static long chars(JsonNode root) {
    if (root == null) {
      return 0;
    }
    long chars = 0;
    Deque<JsonNode> pending = new ArrayDeque<>();
    pending.push(root);
    while (!pending.isEmpty()) {
      JsonNode node = pending.pop();
      chars += 8;
      if (node.isTextual()) {
        chars += node.textValue().length();
      } else if (node.isObject()) {
        for (Map.Entry<String, JsonNode> field : node.properties()) {
          chars += field.getKey().length();
          pending.push(field.getValue());
        }
      } else if (node.isArray()) {
        node.forEach(pending::push);
      }
    }
    return chars;
  }

  private static int length(String text) {
    return text == null ? 0 : text.length();
  }
}
