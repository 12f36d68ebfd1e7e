package io.durableagents.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;

/**
 * A tool call's arguments between a model's wire text and {@link
 * io.durableagents.conversation.ToolCall#arguments()}, the same way for every provider: a JSON
 * object is kept as parsed; anything else is the model's raw text, kept as a string node, which the
 * tool's validation answers with {@code invalid_arguments} (the model can correct itself) instead
 * of the run failing; and raw text goes back to the model verbatim.
 */
public final class ToolArguments {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private ToolArguments() {}

  /**
   * The arguments a model wrote: the JSON object it is, an empty object when {@code raw} is null or
   * blank, else {@code raw} itself as a string node (not JSON, not an object, or trailing text).
   */
  public static JsonNode parse(String raw) {
    if (raw == null || raw.isBlank()) {
      return JSON.createObjectNode();
    }
    try {
      JsonNode parsed = JSON.readTree(raw);
      if (parsed != null && parsed.isObject()) {
        return parsed;
      }
    } catch (JsonProcessingException e) {
      // kept as the model's text below
    }
    return TextNode.valueOf(raw);
  }

  /**
   * The arguments as the JSON text a model API carries: {@code {}} for none, the model's raw text
   * verbatim for a string node, else the compact JSON.
   *
   * @throws ModelException permanent {@code model_request_invalid} when they cannot be written
   */
  public static String text(JsonNode arguments) {
    if (arguments == null || arguments.isNull() || arguments.isMissingNode()) {
      return "{}";
    }
    if (arguments.isTextual()) {
      return arguments.textValue();
    }
    try {
      return JSON.writeValueAsString(arguments);
    } catch (JsonProcessingException e) {
      throw ModelException.permanent(
          io.durableagents.workflow.FailureTypes.MODEL_REQUEST_INVALID,
          "Cannot serialize a tool call's arguments: " + e.getMessage());
    }
  }
}
