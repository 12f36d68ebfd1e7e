package io.durableagents.model.springai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.conversation.Attachment;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import io.durableagents.model.AttachmentContent;
import io.durableagents.model.ModelException;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ToolArguments;
import io.durableagents.model.ToolDefinition;
import io.durableagents.workflow.FailureTypes;
import java.util.ArrayList;
import java.util.List;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.content.Media;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.util.InvalidMimeTypeException;
import org.springframework.util.MimeType;

/**
 * A model turn as a Spring AI {@link Prompt}: the agent's instructions as a {@link SystemMessage},
 * then the conversation (consecutive tool results in one {@link ToolResponseMessage}), with the
 * tools as definitions only and Spring AI's internal tool execution off.
 */
final class PromptMapper {
  private static final String EMPTY_OBJECT_SCHEMA = "{\"type\":\"object\",\"properties\":{}}";

  private final ObjectMapper mapper;

  PromptMapper(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  /**
   * @param model the model name to send, or null to leave the chat model's own default
   */
  Prompt prompt(ModelRequest request, String model) {
    List<org.springframework.ai.chat.messages.Message> messages = new ArrayList<>();
    if (request.instructions() != null && !request.instructions().isBlank()) {
      messages.add(new SystemMessage(request.instructions()));
    }
    List<ToolResponseMessage.ToolResponse> results = new ArrayList<>();
    for (Message message : request.messages()) {
      if (message.role() == Role.TOOL) {
        results.add(
            new ToolResponseMessage.ToolResponse(
                nonNull(message.toolCallId()),
                nonNull(message.toolName()),
                json(message.result())));
        continue;
      }
      flush(results, messages);
      messages.add(message(message, request));
    }
    flush(results, messages);
    ToolCallingChatOptions.Builder options =
        ToolCallingChatOptions.builder()
            .toolCallbacks(tools(request.tools()))
            .internalToolExecutionEnabled(false);
    if (model != null) {
      options.model(model);
    }
    return new Prompt(messages, options.build());
  }

  private org.springframework.ai.chat.messages.Message message(
      Message message, ModelRequest request) {
    Role role = message.role();
    if (role == null) {
      throw ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID,
          "A message without a role cannot be sent to the model.");
    }
    String text = message.text() == null ? "" : message.text();
    return switch (role) {
      case SYSTEM -> new SystemMessage(text);
      case USER ->
          message.attachments().isEmpty()
              ? new UserMessage(text)
              : UserMessage.builder().text(text).media(media(message, request)).build();
      case ASSISTANT ->
          AssistantMessage.builder()
              .content(text)
              .toolCalls(message.toolCalls().stream().map(this::toolCall).toList())
              .build();
      case TOOL -> throw new IllegalStateException("tool results are grouped by the caller");
    };
  }

  private static void flush(
      List<ToolResponseMessage.ToolResponse> results,
      List<org.springframework.ai.chat.messages.Message> messages) {
    if (!results.isEmpty()) {
      messages.add(ToolResponseMessage.builder().responses(List.copyOf(results)).build());
      results.clear();
    }
  }

  private AssistantMessage.ToolCall toolCall(ToolCall call) {
    return new AssistantMessage.ToolCall(
        nonNull(call.id()), "function", nonNull(call.name()), ToolArguments.text(call.arguments()));
  }

  private List<ToolCallback> tools(List<ToolDefinition> tools) {
    List<ToolCallback> callbacks = new ArrayList<>();
    for (ToolDefinition tool : tools) {
      String schema =
          tool.inputSchema() != null && tool.inputSchema().isObject()
              ? json(tool.inputSchema())
              : EMPTY_OBJECT_SCHEMA;
      callbacks.add(new DefinitionOnlyToolCallback(tool, schema));
    }
    return callbacks;
  }

  /** The bytes loaded for this call, one {@link Media} per attachment. */
  private static List<Media> media(Message message, ModelRequest request) {
    List<Media> media = new ArrayList<>();
    for (Attachment attachment : message.attachments()) {
      AttachmentContent content = request.attachments().get(attachment.artifactId());
      if (content == null) {
        throw ModelException.permanent(
            FailureTypes.ARTIFACT_NOT_FOUND,
            "No bytes loaded for attachment " + attachment.artifactId());
      }
      String name = content.name() == null ? attachment.artifactId() : content.name();
      media.add(
          Media.builder()
              .mimeType(mimeType(content.mediaType()))
              .data(content.bytes())
              .name(name)
              .build());
    }
    return media;
  }

  private static MimeType mimeType(String mediaType) {
    try {
      return MimeType.valueOf(mediaType == null ? "application/octet-stream" : mediaType);
    } catch (InvalidMimeTypeException e) {
      return MimeType.valueOf("application/octet-stream");
    }
  }

  private String json(JsonNode node) {
    if (node == null) {
      return "null";
    }
    try {
      return mapper.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID, "Cannot serialize a message: " + e.getMessage());
    }
  }

  private static String nonNull(String value) {
    return value == null ? "" : value;
  }
}
