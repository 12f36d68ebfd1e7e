package io.durableagents.model.anthropic;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;

/** Server-sent events of the Messages API, as its streaming endpoint writes them. */
final class Wire {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Wire() {}

  static String event(String type, String data) {
    return "event: " + type + "\ndata: " + data + "\n\n";
  }

  static String messageStart(long inputTokens) {
    return event(
        "message_start",
        "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_01\",\"type\":\"message\","
            + "\"role\":\"assistant\",\"model\":\"claude-test\",\"content\":[],"
            + "\"stop_reason\":null,\"stop_sequence\":null,"
            + "\"usage\":{\"input_tokens\":"
            + inputTokens
            + ",\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,"
            + "\"output_tokens\":1}}}");
  }

  static String textStart(int index) {
    return event(
        "content_block_start",
        "{\"type\":\"content_block_start\",\"index\":"
            + index
            + ",\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
  }

  static String textDelta(int index, String text) {
    return event(
        "content_block_delta",
        "{\"type\":\"content_block_delta\",\"index\":"
            + index
            + ",\"delta\":{\"type\":\"text_delta\",\"text\":"
            + quote(text)
            + "}}");
  }

  static String thinkingStart(int index) {
    return event(
        "content_block_start",
        "{\"type\":\"content_block_start\",\"index\":"
            + index
            + ",\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}");
  }

  static String thinkingDelta(int index, String thinking) {
    return event(
        "content_block_delta",
        "{\"type\":\"content_block_delta\",\"index\":"
            + index
            + ",\"delta\":{\"type\":\"thinking_delta\",\"thinking\":"
            + quote(thinking)
            + "}}");
  }

  static String signatureDelta(int index) {
    return event(
        "content_block_delta",
        "{\"type\":\"content_block_delta\",\"index\":"
            + index
            + ",\"delta\":{\"type\":\"signature_delta\",\"signature\":\"EqQBCgIYAhIM\"}}");
  }

  static String toolUseStart(int index, String id, String name) {
    return event(
        "content_block_start",
        "{\"type\":\"content_block_start\",\"index\":"
            + index
            + ",\"content_block\":{\"type\":\"tool_use\",\"id\":"
            + quote(id)
            + ",\"name\":"
            + quote(name)
            + ",\"input\":{}}}");
  }

  static String inputJsonDelta(int index, String partialJson) {
    return event(
        "content_block_delta",
        "{\"type\":\"content_block_delta\",\"index\":"
            + index
            + ",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":"
            + quote(partialJson)
            + "}}");
  }

  static String blockStop(int index) {
    return event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":" + index + "}");
  }

  static String messageDelta(String stopReason, long outputTokens) {
    return event(
        "message_delta",
        "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
            + quote(stopReason)
            + ",\"stop_sequence\":null},\"usage\":{\"output_tokens\":"
            + outputTokens
            + "}}");
  }

  static String messageStop() {
    return event("message_stop", "{\"type\":\"message_stop\"}");
  }

  static String ping() {
    return event("ping", "{\"type\": \"ping\"}");
  }

  static String errorEvent(String type, String message) {
    return event("error", errorBody(type, message));
  }

  static String errorBody(String type, String message) {
    return "{\"type\":\"error\",\"error\":{\"type\":"
        + quote(type)
        + ",\"message\":"
        + quote(message)
        + "}}";
  }

  /** A whole text answer: one text block of these deltas, {@code stopReason}, usage 12 / 7. */
  static String textAnswer(String stopReason, String... deltas) {
    StringBuilder out = new StringBuilder(messageStart(12)).append(textStart(0)).append(ping());
    for (String delta : deltas) {
      out.append(textDelta(0, delta));
    }
    return out.append(blockStop(0))
        .append(messageDelta(stopReason, 7))
        .append(messageStop())
        .toString();
  }

  /** A tool call in one answer: its input as whole-JSON fragments. */
  record Call(String id, String name, List<String> fragments) {}

  /** Text (may be empty), then one tool_use block per call; stop reason tool_use. */
  static String toolUseAnswer(String text, long inputTokens, long outputTokens, Call... calls) {
    StringBuilder out = new StringBuilder(messageStart(inputTokens));
    int index = 0;
    if (!text.isEmpty()) {
      out.append(textStart(0)).append(textDelta(0, text)).append(blockStop(0));
      index++;
    }
    for (Call call : calls) {
      out.append(toolUseStart(index, call.id(), call.name()));
      for (String fragment : call.fragments()) {
        out.append(inputJsonDelta(index, fragment));
      }
      out.append(blockStop(index));
      index++;
    }
    return out.append(messageDelta("tool_use", outputTokens)).append(messageStop()).toString();
  }

  static String quote(String text) {
    try {
      return JSON.writeValueAsString(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
