package io.durableagents.model.anthropic;

import com.anthropic.core.JsonValue;
import com.anthropic.models.messages.Base64ImageSource;
import com.anthropic.models.messages.Base64PdfSource;
import com.anthropic.models.messages.ContentBlockParam;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.MessageParam;
import com.anthropic.models.messages.PlainTextSource;
import com.anthropic.models.messages.Tool;
import com.anthropic.models.messages.ToolResultBlockParam;
import com.anthropic.models.messages.ToolUseBlockParam;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.conversation.Attachment;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import io.durableagents.model.AttachmentContent;
import io.durableagents.model.ModelException;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ToolDefinition;
import io.durableagents.workflow.FailureTypes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A {@link ModelRequest} as Messages API parameters: the instructions (and any system messages of
 * the conversation) as {@code system}; the conversation as alternating {@code user} / {@code
 * assistant} messages, tool calls as {@code tool_use} blocks and their results as {@code
 * tool_result} blocks of the next user message; the tools with their JSON schema as {@code
 * input_schema}.
 */
final class MessagesRequest {
  /** The image types the Messages API accepts as base64 image blocks. */
  static final Set<String> IMAGE_TYPES =
      Set.of("image/jpeg", "image/png", "image/gif", "image/webp");

  private MessagesRequest() {}

  static MessageCreateParams params(
      ModelRequest request, String model, long maxTokens, ObjectMapper mapper) {
    MessageCreateParams.Builder params =
        MessageCreateParams.builder().model(model).maxTokens(maxTokens);
    StringBuilder system = new StringBuilder();
    if (request.instructions() != null && !request.instructions().isBlank()) {
      system.append(request.instructions());
    }
    List<Turn> turns = new ArrayList<>();
    for (Message message : request.messages()) {
      if (message.role() == null) {
        throw ModelException.permanent(
            FailureTypes.MODEL_REQUEST_INVALID,
            "A message without a role cannot be sent to the model.");
      }
      switch (message.role()) {
        case SYSTEM -> {
          // The Messages API has no system role inside the conversation: it joins `system`.
          if (message.text() != null && !message.text().isBlank()) {
            system.append(system.length() == 0 ? "" : "\n\n").append(message.text());
          }
        }
        case USER -> add(turns, Role.USER, userBlocks(message, request));
        case ASSISTANT -> add(turns, Role.ASSISTANT, assistantBlocks(message));
        case TOOL -> add(turns, Role.USER, List.of(toolResult(message, mapper)));
      }
    }
    if (system.length() > 0) {
      params.system(system.toString());
    }
    for (Turn turn : turns) {
      params.addMessage(
          turn.role == Role.USER
              ? MessageParam.ofUserOfContentBlockParams(turn.blocks)
              : MessageParam.ofAssistantOfContentBlockParams(turn.blocks));
    }
    for (ToolDefinition tool : request.tools()) {
      params.addTool(tool(tool, mapper));
    }
    return params.build();
  }

  /** One message of the wire conversation: consecutive blocks of one role. */
  private record Turn(Role role, List<ContentBlockParam> blocks) {}

  /**
   * Appends blocks to the last turn when it has the same role (the API wants user and assistant to
   * alternate: consecutive tool results, and a user message after them, are one user message).
   */
  private static void add(List<Turn> turns, Role role, List<ContentBlockParam> blocks) {
    if (blocks.isEmpty()) {
      return;
    }
    if (!turns.isEmpty() && turns.get(turns.size() - 1).role == role) {
      turns.get(turns.size() - 1).blocks.addAll(blocks);
    } else {
      turns.add(new Turn(role, new ArrayList<>(blocks)));
    }
  }

  private static List<ContentBlockParam> userBlocks(Message message, ModelRequest request) {
    List<ContentBlockParam> blocks = new ArrayList<>();
    if (message.text() != null && !message.text().isEmpty()) {
      blocks.add(ContentBlockParam.ofText(message.text()));
    }
    for (Attachment attachment : message.attachments()) {
      blocks.add(attachment(attachment, request.attachments()));
    }
    return blocks;
  }

  /**
   * An attachment as an image block (JPEG, PNG, GIF, WebP), a PDF document block or a plain-text
   * document block (any {@code text/*}); other types are refused, since the Messages API takes no
   * other inline file.
   */
  private static ContentBlockParam attachment(
      Attachment attachment, Map<String, AttachmentContent> loaded) {
    AttachmentContent content = loaded.get(attachment.artifactId());
    if (content == null) {
      throw ModelException.permanent(
          FailureTypes.ARTIFACT_NOT_FOUND,
          "No bytes loaded for attachment " + attachment.artifactId());
    }
    String mediaType =
        content.mediaType() == null
            ? "application/octet-stream"
            : content.mediaType().toLowerCase(Locale.ROOT).split(";", 2)[0].strip();
    String base64 = Base64.getEncoder().encodeToString(content.bytes());
    if (IMAGE_TYPES.contains(mediaType)) {
      return ContentBlockParam.ofImage(
          Base64ImageSource.builder()
              .data(base64)
              .mediaType(Base64ImageSource.MediaType.of(mediaType))
              .build());
    }
    if (mediaType.equals("application/pdf")) {
      return ContentBlockParam.ofDocument(Base64PdfSource.of(base64));
    }
    if (mediaType.startsWith("text/")) {
      return ContentBlockParam.ofDocument(
          PlainTextSource.of(new String(content.bytes(), StandardCharsets.UTF_8)));
    }
    throw ModelException.permanent(
        FailureTypes.MODEL_REQUEST_INVALID,
        "Anthropic's Messages API takes images (JPEG, PNG, GIF, WebP), PDF and text attachments,"
            + " not "
            + mediaType
            + " (attachment "
            + attachment.artifactId()
            + ").");
  }

  private static List<ContentBlockParam> assistantBlocks(Message message) {
    List<ContentBlockParam> blocks = new ArrayList<>();
    // The API refuses empty text blocks: an assistant turn without text sends only its calls.
    if (message.text() != null && !message.text().isBlank()) {
      blocks.add(ContentBlockParam.ofText(message.text()));
    }
    for (ToolCall call : message.toolCalls()) {
      blocks.add(
          ContentBlockParam.ofToolUse(
              ToolUseBlockParam.builder()
                  .id(call.id())
                  .name(call.name())
                  .input(input(call.arguments()))
                  .build()));
    }
    return blocks;
  }

  /**
   * The call's arguments as a {@code tool_use} input, which must be an object: arguments the model
   * sent that were not a JSON object (kept as their raw text, which the tool refused with {@code
   * invalid_arguments}) go back as an empty object; the tool's result says what was wrong.
   */
  private static ToolUseBlockParam.Input input(JsonNode arguments) {
    ToolUseBlockParam.Input.Builder input = ToolUseBlockParam.Input.builder();
    if (arguments != null && arguments.isObject()) {
      for (Map.Entry<String, JsonNode> field : arguments.properties()) {
        input.putAdditionalProperty(field.getKey(), JsonValue.fromJsonNode(field.getValue()));
      }
    }
    return input.build();
  }

  /**
   * A tool's result as a {@code tool_result} block: the result's JSON as text, marked {@code
   * is_error} when it is an error result ({@code {"error": ...}}).
   */
  private static ContentBlockParam toolResult(Message message, ObjectMapper mapper) {
    JsonNode result = message.result();
    ToolResultBlockParam.Builder block =
        ToolResultBlockParam.builder()
            .toolUseId(message.toolCallId())
            .content(json(result, mapper));
    if (result != null && result.isObject() && result.has("error")) {
      block.isError(true);
    }
    return ContentBlockParam.ofToolResult(block.build());
  }

  /**
   * A tool with its JSON schema as {@code input_schema}, read by the SDK's own mapper so that every
   * keyword of the schema is sent as given; a tool without a schema takes an empty object.
   */
  private static Tool tool(ToolDefinition definition, ObjectMapper mapper) {
    ObjectNode schema =
        definition.inputSchema() != null && definition.inputSchema().isObject()
            ? ((ObjectNode) definition.inputSchema()).deepCopy()
            : mapper.createObjectNode();
    if (!schema.has("type")) {
      schema.put("type", "object");
    }
    if (!schema.has("properties")) {
      schema.putObject("properties");
    }
    Tool.Builder tool =
        Tool.builder()
            .name(definition.name())
            .inputSchema(JsonValue.fromJsonNode(schema).convert(Tool.InputSchema.class));
    if (definition.description() != null && !definition.description().isBlank()) {
      tool.description(definition.description());
    }
    return tool.build();
  }

  private static String json(JsonNode node, ObjectMapper mapper) {
    try {
      return node == null ? "null" : mapper.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID, "Cannot serialize a tool result: " + e.getMessage());
    }
  }
}
