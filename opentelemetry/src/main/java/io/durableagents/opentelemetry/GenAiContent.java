package io.durableagents.opentelemetry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.conversation.Attachment;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import io.durableagents.model.ModelResponse;
import java.util.List;

/**
 * Prompts, answers, arguments and results as the JSON the GenAI semantic conventions give their
 * content attributes (messages of {@code role} and {@code parts}), cut at a number of characters.
 */
final class GenAiContent {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final int maxChars;

  GenAiContent(int maxChars) {
    this.maxChars = maxChars;
  }

  /** {@code gen_ai.system_instructions}: one text part. */
  String systemInstructions(String instructions) {
    ArrayNode parts = JSON.createArrayNode();
    parts.add(text(instructions));
    return bounded(parts);
  }

  /** {@code gen_ai.input.messages}: the conversation the model is sent. */
  String inputMessages(List<Message> messages) {
    ArrayNode array = JSON.createArrayNode();
    for (Message message : messages) {
      ObjectNode node = array.addObject().put("role", message.role().value());
      ArrayNode parts = node.putArray("parts");
      if (message.role() == Role.TOOL) {
        parts
            .addObject()
            .put("type", "tool_call_response")
            .put("id", message.toolCallId())
            .set("response", message.result());
      }
      if (message.text() != null && !message.text().isEmpty()) {
        parts.add(text(message.text()));
      }
      for (ToolCall call : message.toolCalls()) {
        parts.add(toolCall(call));
      }
      for (Attachment attachment : message.attachments()) {
        parts
            .addObject()
            .put("type", "file")
            .put("file_id", attachment.artifactId())
            .put("mime_type", attachment.mediaType());
      }
    }
    return bounded(array);
  }

  /** {@code gen_ai.output.messages}: the model's answer, one assistant message. */
  String outputMessages(ModelResponse response) {
    ArrayNode array = JSON.createArrayNode();
    ObjectNode message = array.addObject().put("role", Role.ASSISTANT.value());
    ArrayNode parts = message.putArray("parts");
    if (response.text() != null && !response.text().isEmpty()) {
      parts.add(text(response.text()));
    }
    for (ToolCall call : response.toolCalls()) {
      parts.add(toolCall(call));
    }
    message.put("finish_reason", response.finishReason());
    return bounded(array);
  }

  /** A tool's arguments or result: its JSON. */
  String json(JsonNode value) {
    return value == null ? "null" : bounded(value);
  }

  private static ObjectNode text(String content) {
    return JSON.createObjectNode().put("type", "text").put("content", content);
  }

  private static ObjectNode toolCall(ToolCall call) {
    ObjectNode part =
        JSON.createObjectNode()
            .put("type", "tool_call")
            .put("id", call.id())
            .put("name", call.name());
    part.set("arguments", call.arguments());
    return part;
  }

  /** The JSON text, cut at {@code maxChars} characters with an ellipsis after the cut. */
  private String bounded(JsonNode node) {
    String text;
    try {
      text = JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      // A tree of plain nodes always serializes; say so rather than fail the traced work.
      text = "\"unserializable: " + e.getOriginalMessage() + "\"";
    }
    return text.length() <= maxChars ? text : text.substring(0, maxChars) + "…";
  }
}
