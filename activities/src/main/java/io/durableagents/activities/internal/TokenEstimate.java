package io.durableagents.activities.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.ToolCall;
import io.durableagents.model.ToolDefinition;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;

/**
 * A calibrated estimate of the tokens a model request takes, without a provider's tokenizer: about
 * four ASCII characters a token (English text and JSON under the common byte-pair encodings come to
 * 3.5 to 4.5), every other code point a token of its own (CJK, emoji; accented Latin costs less, so
 * the estimate errs high), plus a few tokens a message and a JSON node for the format the provider
 * wraps them in. It errs on the high side so that a view estimated within the window fits; the
 * worker corrects it with the input tokens providers report ({@link ContextCalibration}).
 */
public final class TokenEstimate {
  /** What a message costs besides its content: its role and the provider's wrapping. */
  static final int MESSAGE_OVERHEAD = 4;

  private TokenEstimate() {}

  /** The tokens of {@code text} (0 for null). */
  public static long of(String text) {
    if (text == null || text.isEmpty()) {
      return 0;
    }
    long ascii = 0;
    long other = 0;
    for (int i = 0; i < text.length(); ) {
      int codePoint = text.codePointAt(i);
      if (codePoint < 0x80) {
        ascii++;
      } else {
        other++;
      }
      i += Character.charCount(codePoint);
    }
    return (ascii + 3) / 4 + other;
  }

  /** The tokens of a JSON value as a provider sends it: its texts, keys and punctuation. */
  public static long of(JsonNode root) {
    if (root == null || root.isNull() || root.isMissingNode()) {
      return 0;
    }
    long tokens = 0;
    Deque<JsonNode> pending = new ArrayDeque<>();
    pending.push(root);
    while (!pending.isEmpty()) {
      JsonNode node = pending.pop();
      tokens += 1;
      if (node.isTextual()) {
        tokens += of(node.textValue());
      } else if (node.isObject()) {
        for (Map.Entry<String, JsonNode> field : node.properties()) {
          tokens += of(field.getKey()) + 1;
          pending.push(field.getValue());
        }
      } else if (node.isArray()) {
        node.forEach(pending::push);
      } else if (!node.isNull()) {
        tokens += (node.asText().length() + 2) / 3;
      }
    }
    return tokens;
  }

  /** The tokens of one message: its text, its tool calls and its result. */
  public static long of(Message message) {
    long tokens = MESSAGE_OVERHEAD + of(message.text()) + of(message.toolCallId());
    for (ToolCall call : message.toolCalls()) {
      tokens += MESSAGE_OVERHEAD + of(call.id()) + of(call.name()) + of(call.arguments());
    }
    return tokens + of(message.result());
  }

  /** The tokens of what every request of an agent carries: its instructions and tools. */
  public static long fixed(String instructions, List<ToolDefinition> tools) {
    long tokens = MESSAGE_OVERHEAD + of(instructions);
    for (ToolDefinition tool : tools) {
      tokens +=
          MESSAGE_OVERHEAD + of(tool.name()) + of(tool.description()) + of(tool.inputSchema());
    }
    return tokens;
  }

  /** The tokens of a whole request: {@link #fixed} and every message. */
  public static long request(
      String instructions, List<ToolDefinition> tools, List<Message> messages) {
    long tokens = fixed(instructions, tools);
    for (Message message : messages) {
      tokens += of(message);
    }
    return tokens;
  }
}
