package io.durableagents.model.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import io.durableagents.model.ModelException;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ToolArguments;
import io.durableagents.model.ToolDefinition;
import io.durableagents.workflow.FailureTypes;

/**
 * The JSON body of a streaming Chat Completions request: the agent's instructions as the first
 * {@code system} message, then the conversation, then the tools as {@code function} tools.
 */
final class ChatCompletionsRequest {
  private ChatCompletionsRequest() {}

  static ObjectNode body(ModelRequest request, String model, ObjectMapper mapper) {
    ObjectNode body = mapper.createObjectNode();
    body.put("model", model);
    body.put("stream", true);
    body.putObject("stream_options").put("include_usage", true);
    ArrayNode messages = body.putArray("messages");
    if (request.instructions() != null && !request.instructions().isBlank()) {
      messages.addObject().put("role", Role.SYSTEM.value()).put("content", request.instructions());
    }
    for (Message message : request.messages()) {
      ObjectNode node = message(message, mapper);
      if (message.role() == Role.USER && !message.attachments().isEmpty()) {
        node.set("content", contentParts(message, request, mapper));
      }
      messages.add(node);
    }
    if (!request.tools().isEmpty()) {
      ArrayNode tools = body.putArray("tools");
      for (ToolDefinition tool : request.tools()) {
        ObjectNode function = tools.addObject().put("type", "function").putObject("function");
        function.put("name", tool.name());
        if (tool.description() != null && !tool.description().isBlank()) {
          function.put("description", tool.description());
        }
        if (tool.inputSchema() != null && tool.inputSchema().isObject()) {
          function.set("parameters", tool.inputSchema());
        } else {
          function.putObject("parameters").put("type", "object").putObject("properties");
        }
      }
    }
    return body;
  }

  /**
   * A user message with attachments as content parts: its text, then one part per attachment
   * (images as {@code image_url} data URLs, text as {@code text}, anything else as a {@code file}
   * part with base64 data). The bytes are the ones loaded for this call.
   */
  private static ArrayNode contentParts(
      Message message, ModelRequest request, ObjectMapper mapper) {
    ArrayNode parts = mapper.createArrayNode();
    if (message.text() != null && !message.text().isEmpty()) {
      parts.addObject().put("type", "text").put("text", message.text());
    }
    for (io.durableagents.conversation.Attachment attachment : message.attachments()) {
      io.durableagents.model.AttachmentContent content =
          request.attachments().get(attachment.artifactId());
      if (content == null) {
        throw ModelException.permanent(
            FailureTypes.ARTIFACT_NOT_FOUND,
            "No bytes loaded for attachment " + attachment.artifactId());
      }
      String mediaType =
          content.mediaType() == null ? "application/octet-stream" : content.mediaType();
      String base64 = java.util.Base64.getEncoder().encodeToString(content.bytes());
      if (mediaType.startsWith("image/")) {
        parts
            .addObject()
            .put("type", "image_url")
            .putObject("image_url")
            .put("url", "data:" + mediaType + ";base64," + base64);
      } else if (mediaType.startsWith("text/")) {
        parts
            .addObject()
            .put("type", "text")
            .put("text", new String(content.bytes(), java.nio.charset.StandardCharsets.UTF_8));
      } else {
        ObjectNode file = parts.addObject().put("type", "file").putObject("file");
        file.put("filename", content.name() == null ? attachment.artifactId() : content.name());
        file.put("file_data", "data:" + mediaType + ";base64," + base64);
      }
    }
    return parts;
  }

  private static ObjectNode message(Message message, ObjectMapper mapper) {
    ObjectNode node = mapper.createObjectNode();
    Role role = message.role();
    if (role == null) {
      throw ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID,
          "A message without a role cannot be sent to the model.");
    }
    // OpenAI names its roles as we do.
    node.put("role", role.value());
    switch (role) {
      case SYSTEM, USER -> node.put("content", message.text() == null ? "" : message.text());
      case ASSISTANT -> {
        boolean hasText = message.text() != null && !message.text().isEmpty();
        if (hasText || message.toolCalls().isEmpty()) {
          node.put("content", hasText ? message.text() : "");
        } else {
          node.putNull("content");
        }
        if (!message.toolCalls().isEmpty()) {
          ArrayNode calls = node.putArray("tool_calls");
          for (ToolCall call : message.toolCalls()) {
            ObjectNode callNode = calls.addObject();
            callNode.put("id", call.id());
            callNode.put("type", "function");
            callNode
                .putObject("function")
                .put("name", call.name())
                .put("arguments", ToolArguments.text(call.arguments()));
          }
        }
      }
      case TOOL -> {
        node.put("tool_call_id", message.toolCallId());
        node.put("content", json(message.result(), mapper));
      }
    }
    return node;
  }

  private static String json(JsonNode node, ObjectMapper mapper) {
    try {
      return mapper.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID, "Cannot serialize a message: " + e.getMessage());
    }
  }
}
