package io.durableagents.model.langchain4j;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.PdfFileContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import io.durableagents.conversation.Attachment;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.ToolCall;
import io.durableagents.model.AttachmentContent;
import io.durableagents.model.ModelException;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ToolArguments;
import io.durableagents.model.ToolDefinition;
import io.durableagents.workflow.FailureTypes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A model turn as a LangChain4j {@link ChatRequest}: the agent's instructions as the first {@link
 * SystemMessage}, then the conversation (user → {@link UserMessage}, assistant → {@link AiMessage}
 * with its {@link ToolExecutionRequest}s, tool result → {@link ToolExecutionResultMessage}), then
 * the tools as {@link ToolSpecification}s. No model name or other parameter is set: the model's own
 * configuration applies.
 */
final class ChatRequests {
  private ChatRequests() {}

  static ChatRequest from(ModelRequest request, ObjectMapper mapper) {
    List<ChatMessage> messages = new ArrayList<>();
    if (!blank(request.instructions())) {
      messages.add(SystemMessage.from(request.instructions()));
    }
    for (Message message : request.messages()) {
      ChatMessage converted = message(message, request, mapper);
      if (converted != null) {
        messages.add(converted);
      }
    }
    List<ToolSpecification> tools = new ArrayList<>();
    for (ToolDefinition tool : request.tools()) {
      tools.add(ToolSchemas.specification(tool, mapper));
    }
    ChatRequest.Builder chat = ChatRequest.builder().messages(messages);
    if (!tools.isEmpty()) {
      chat.toolSpecifications(tools);
    }
    return chat.build();
  }

  private static ChatMessage message(Message message, ModelRequest request, ObjectMapper mapper) {
    if (message.role() == null) {
      throw ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID,
          "A message without a role cannot be sent to the model.");
    }
    return switch (message.role()) {
      // LangChain4j refuses a blank system message; an empty one says nothing anyway.
      case SYSTEM -> blank(message.text()) ? null : SystemMessage.from(message.text());
      case USER -> user(message, request);
      case ASSISTANT -> assistant(message);
      case TOOL ->
          ToolExecutionResultMessage.from(
              message.toolCallId(), message.toolName(), json(message.result(), mapper));
    };
  }

  private static UserMessage user(Message message, ModelRequest request) {
    String text = message.text() == null ? "" : message.text();
    if (message.attachments().isEmpty()) {
      return UserMessage.from(text);
    }
    List<Content> contents = new ArrayList<>();
    if (!text.isEmpty()) {
      contents.add(TextContent.from(text));
    }
    for (Attachment attachment : message.attachments()) {
      contents.add(content(attachment, request));
    }
    return UserMessage.from(contents);
  }

  /** An attachment as a content part: images, text and PDF files; any other type is refused. */
  private static Content content(Attachment attachment, ModelRequest request) {
    AttachmentContent content = request.attachments().get(attachment.artifactId());
    if (content == null) {
      throw ModelException.permanent(
          FailureTypes.ARTIFACT_NOT_FOUND,
          "No bytes loaded for attachment " + attachment.artifactId());
    }
    String mediaType =
        content.mediaType() == null ? "application/octet-stream" : content.mediaType();
    if (mediaType.startsWith("text/")) {
      return TextContent.from(new String(content.bytes(), StandardCharsets.UTF_8));
    }
    String base64 = Base64.getEncoder().encodeToString(content.bytes());
    if (mediaType.startsWith("image/")) {
      return ImageContent.from(base64, mediaType);
    }
    if (mediaType.equals("application/pdf")) {
      return PdfFileContent.from(base64, mediaType);
    }
    throw ModelException.permanent(
        FailureTypes.MODEL_REQUEST_INVALID,
        "Attachment "
            + attachment.artifactId()
            + " is "
            + mediaType
            + ": the LangChain4j provider sends images, text and PDF files only.");
  }

  private static AiMessage assistant(Message message) {
    List<ToolExecutionRequest> calls = new ArrayList<>();
    for (ToolCall call : message.toolCalls()) {
      calls.add(
          ToolExecutionRequest.builder()
              .id(call.id())
              .name(call.name())
              .arguments(ToolArguments.text(call.arguments()))
              .build());
    }
    String text = message.text() == null ? "" : message.text();
    if (calls.isEmpty()) {
      return AiMessage.from(text);
    }
    return AiMessage.builder()
        .text(text.isEmpty() ? null : text)
        .toolExecutionRequests(calls)
        .build();
  }

  private static String json(JsonNode node, ObjectMapper mapper) {
    try {
      return mapper.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID, "Cannot serialize a message: " + e.getMessage());
    }
  }

  private static boolean blank(String text) {
    return text == null || text.isBlank();
  }
}
